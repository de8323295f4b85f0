"""An online shop's customer-service back office: a 1,800-word policy, 14 tools over nested JSON
records, generated customers and several requests of each, a simulated customer and model.

python -m examples.shop --base-url http://127.0.0.1:8000/v1
"""

from examples.shop.agent import MODEL, Outcome, ShopAgent
from examples.shop.backend import Backend, ToolError, fresh_backend
from examples.shop.scenarios import Scenario, scenarios
from examples.shop.simulated import ShopModel, simulated

__all__ = [
    "MODEL",
    "Backend",
    "Outcome",
    "Scenario",
    "ShopAgent",
    "ShopModel",
    "ToolError",
    "fresh_backend",
    "scenarios",
    "simulated",
]
