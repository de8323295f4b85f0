"""What an upstream call costs, from LiteLLM's own model price map, read without importing LiteLLM.

LiteLLM ships its price map as a JSON file in its package; importing LiteLLM itself takes over a
second, which a report must not pay. A model the map does not know has no price: the report
says "unknown" rather than guessing.
"""

from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path
from typing import Any

PRICE_FILE = "model_prices_and_context_window_backup.json"


@functools.cache
def _price_map() -> dict[str, Any]:
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return {}
    path = Path(next(iter(spec.submodule_search_locations))) / PRICE_FILE
    found: dict[str, Any] = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    return found


def call_cost(model: str | None, prompt_tokens: int | None, completion_tokens: int | None) -> float | None:
    """US dollars of one upstream call; None when the model has no price or the call no token count."""
    price = price_per_token(model)
    if price is None or not prompt_tokens:
        return None
    return price[0] * prompt_tokens + price[1] * (completion_tokens or 0)


def price_per_token(model: str | None) -> tuple[float, float] | None:
    """(input, output) US dollars per token for a LiteLLM model string; None when unknown."""
    if not model:
        return None
    prices = _price_map()
    for name in (model, model.split("/", 1)[-1]):
        entry = prices.get(name)
        if isinstance(entry, dict) and "input_cost_per_token" in entry:
            return float(entry["input_cost_per_token"]), float(entry.get("output_cost_per_token") or 0.0)
    return None
