"""A legacy travel agent: the plain openai SDK, 13 tools over an in-memory booking system, 45 tasks.

python -m examples.travel_agent --base-url http://127.0.0.1:8000/v1
"""

from examples.travel_agent.agent import TaskResult, TravelAgent
from examples.travel_agent.backend import Backend, ToolError
from examples.travel_agent.tasks import TASKS, Task

__all__ = ["TASKS", "Backend", "Task", "TaskResult", "ToolError", "TravelAgent"]
