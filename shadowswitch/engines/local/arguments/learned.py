"""What a task type's learned state adds to a chosen tool's arguments: the parameters the upstream
always sets made required, the constants it always sends filled in (provenance `learned`), the
values it rewrites rewritten (provenance `learned_transform`), from a grounded value only, and an
abstention on a value read where this parameter's values are usually wrong (`unreliable_value`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from shadowswitch.engines.local.arguments.grounding import GROUNDED, Filled
from shadowswitch.engines.local.arguments.rewrites import RegionOf, rewrite
from shadowswitch.engines.local.conversation import value_origin
from shadowswitch.engines.local.learned_state import constant_values, transforms_of
from shadowswitch.engines.local.schema import is_valid

if TYPE_CHECKING:
    from shadowswitch.engines.local.learned_state import LearnedState
    from shadowswitch.request import ChatView

UNRELIABLE_PREFIX = "unreliable_value:"
UNPROVEN_PREFIX = "unproven_tool: "


def with_usual(parameters: dict[str, Any], memory: LearnedState, tool: str) -> dict[str, Any]:
    """The tool's schema with the parameters the upstream always sets made required (those a
    learned constant supplies excepted): the engine fills them from the text or abstains."""
    constants = constant_values(memory.constants.get(tool, {}))
    properties = parameters.get("properties") or {}
    usual = [p for p in memory.usual.get(tool, []) if p in properties and p not in constants]
    required = list(parameters.get("required") or [])
    added = [p for p in usual if p not in required]
    return {**parameters, "required": required + added} if added else parameters


def learned_values(
    filled: Filled,
    parameters: dict[str, Any],
    learned: dict[str, Any],
    version: int,
    region_of: RegionOf | None = None,
) -> None:
    """The tool's learned values (`learning.rules.learned_constants`) applied to what the text filled.

    A learned transform rewrites a value read from the conversation (`GROUNDED`); one it cannot
    rewrite, or whose rewrite does not fit the parameter's schema, is taken out and the parameter
    reported missing (the engine abstains): the upstream writes this parameter otherwise, and the
    value as read would not agree. A learned constant fills a parameter the text left unfilled,
    only when the call with it still fits the tool's schema: not invented here, but the agent's
    own constant, seen in its exemplars (provenance `learned`)."""
    properties = parameters.get("properties") or {}
    for name, transform in transforms_of(learned).items():
        source = filled.sources.get(name, {})
        if name not in filled.arguments or source.get("source") not in GROUNDED:
            continue
        read = filled.arguments[name]
        value = rewrite(transform, read, region_of)
        if value is None or not is_valid(value, properties.get(name) or {}):
            del filled.arguments[name], filled.sources[name]
            filled.missing.append(name)
            continue
        span: dict[str, Any] = {k: source[k] for k in ("message", "start", "end", "text") if k in source}
        provenance = {"source": "learned_transform", "transform": transform, "state_version": version}
        filled.put(name, (value, {**provenance, "from": read, **span}))
    for name, value in constant_values(learned).items():
        if name in filled.arguments or name not in properties:
            continue
        if not is_valid({**filled.arguments, name: value}, {**parameters, "required": []}):
            continue
        filled.put(name, (value, {"source": "learned", "state_version": version}))
        if name in filled.missing:
            filled.missing.remove(name)


def held_back(sources: dict[str, Any], request: ChatView, memory: LearnedState, tool: str) -> str | None:
    """Why the learned state holds back a call filled in full: a value from an origin it found
    usually wrong for its parameter (`unreliable_value`), or `unproven_tool: <tool>` when its pairs
    show the engine's calls of `tool` agreeing too rarely to serve one (`LearnedState.unproven`).
    The call is filled all the same, so that learning judges the values it would have given."""
    wrong = unreliable_value(sources, request, memory.unreliable.get(tool))
    return wrong or (f"{UNPROVEN_PREFIX}{tool}" if memory.unproven(tool) else None)


def unreliable_value(
    sources: dict[str, Any], request: ChatView, unreliable: dict[str, tuple[str, ...]] | None
) -> str | None:
    """`unreliable_value:<param> (<origin>)` for the first value whose origin the learned state
    found usually wrong for this parameter (`learning/origins.py`), else None."""
    for name, source in sources.items():
        origin = value_origin(source, request)
        if origin is not None and origin in (unreliable or {}).get(name, ()):
            return f"{UNRELIABLE_PREFIX}{name} ({origin})"
    return None
