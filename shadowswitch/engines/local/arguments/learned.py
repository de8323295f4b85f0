"""What a task type's learned state adds to a chosen tool's arguments: the parameters the upstream
always sets made required, and the constants it always sends filled in (provenance `learned`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from shadowswitch.engines.local.arguments.grounding import Filled
from shadowswitch.engines.local.schema import is_valid

if TYPE_CHECKING:
    from shadowswitch.learning.memory import Memory


def with_usual(parameters: dict[str, Any], memory: Memory, tool: str) -> dict[str, Any]:
    """The tool's schema with the parameters the upstream always sets made required (those a
    learned constant supplies excepted): the engine fills them from the text or abstains."""
    constants = memory.constants.get(tool, {})
    properties = parameters.get("properties") or {}
    usual = [p for p in memory.usual.get(tool, []) if p in properties and p not in constants]
    required = list(parameters.get("required") or [])
    added = [p for p in usual if p not in required]
    return {**parameters, "required": required + added} if added else parameters


def learned_values(
    filled: Filled, parameters: dict[str, Any], constants: dict[str, Any], version: int
) -> None:
    """Values the upstream set in (nearly) every call of this tool and that were never in the
    conversation (`memory.learned_constants`), for parameters the text left unfilled, each kept
    only when the call with it still fits the tool's schema. Provenance `learned`: not invented
    here, but the agent's own constant, seen in its exemplars."""
    properties = parameters.get("properties") or {}
    for name, value in constants.items():
        if name in filled.arguments or name not in properties:
            continue
        if not is_valid({**filled.arguments, name: value}, {**parameters, "required": []}):
            continue
        filled.put(name, (value, {"source": "learned", "state_version": version}))
        if name in filled.missing:
            filled.missing.remove(name)
