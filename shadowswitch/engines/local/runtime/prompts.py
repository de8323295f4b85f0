"""What the language model is asked: a fixed part (cacheable) and a per-request part.

The texts only; `LanguageModel` writes them in its model's own chat format (chat.py).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from shadowswitch.engines.local.choice.candidates import NO_TOOL_ID, Candidate
from shadowswitch.engines.local.runtime.chat import System, Turn


def choice_fixed(candidates: Sequence[Candidate]) -> System:
    """Instructions and the candidate list: identical across the steps of one agent."""
    lines = [f"- {label(c)}: {_short(c.text.split(': ', 1)[-1])}" for c in candidates]
    return System(
        "Pick the one option that best handles the user's last message.\nOptions:\n" + "\n".join(lines)
    )


def _short(description: str, limit: int = 120) -> str:
    """The description's first sentence, capped: the LM reads every token on a CPU."""
    first = description.split(". ")[0]
    return first[:limit]


def choice_variable(conversation: str) -> Turn:
    return Turn(conversation[-600:], "Option:")


def label(candidate: Candidate) -> str:
    return "none" if candidate.id == NO_TOOL_ID else candidate.id


def arguments_fixed(name: str, parameters: dict[str, Any]) -> System:
    """The chosen tool's signature; the same for every call of that tool."""
    spec = {"name": name, "parameters": _compact(parameters)}
    system = "Call the function with argument values taken from the user's message.\n"
    return System(system + json.dumps(spec, separators=(",", ":"))[:3000])


def arguments_variable(conversation: str, name: str, filled: dict[str, Any], param: str) -> Turn:
    """The user's turn, then the call written so far up to the value of `param`."""
    head = json.dumps({"name": name, "arguments": filled}, separators=(",", ":"))[:-2]
    sep = "," if filled else ""
    return Turn(conversation[-1500:], f"{head}{sep}{json.dumps(param)}:")


def _compact(schema: dict[str, Any]) -> dict[str, Any]:
    props = schema.get("properties") or {}
    return {
        k: {key: v[key] for key in ("type", "enum", "description") if key in v}
        for k, v in props.items()
        if isinstance(v, dict)
    }
