"""Turn a chosen action or enum value into the Choice the proxy serves (content rendered).

Slots and the response schema's other properties follow the tools' rule: a required one that
nothing in the conversation grounds makes the engine abstain with `missing_value:<name>`.
"""

from __future__ import annotations

import json
from typing import Any

from shadowswitch.engines.base import Choice
from shadowswitch.engines.local.arguments.filler import ArgumentFiller
from shadowswitch.engines.local.arguments.grounding import at_message, from_text, in_message, missing_reason
from shadowswitch.engines.local.arguments.slots import content_of, pattern_values, render, slot_schema
from shadowswitch.engines.local.choice.candidates import Candidate, response_schema
from shadowswitch.engines.local.conversation import user_turns, value_turn
from shadowswitch.engines.local.schema import find_enum_property, is_valid
from shadowswitch.policy.models import Action
from shadowswitch.request import ChatView

UPSTREAM_SLOT = "text"  # under `fill: generative`, the upstream writes this one


def action_choice(cand: Candidate, request: ChatView, filler: ArgumentFiller) -> Choice:
    """Pattern slots from any user turn (newest first), the rest from the last one."""
    action: Action = cand.value
    turns: list[tuple[int | None, str]] = [*user_turns(request)] or [value_turn(request)]
    found = pattern_values(action, turns)
    schema = slot_schema(action)
    rest = {k: v for k, v in schema["properties"].items() if k not in found and "pattern" not in v}
    message, text = turns[0]
    filled = filler.fill(_object_of(rest, schema), text)
    values = {name: value for name, (value, _) in found.items()} | filled.arguments
    sources = {name: source for name, (_, source) in found.items()} | at_message(filled.sources, message)
    generative = action.fill == "generative"
    missing = [
        name
        for name, slot in action.slots.items()
        if slot.required and name not in values and not (generative and name == UPSTREAM_SLOT)
    ]
    reason = missing_reason(missing[0]) if missing else None
    content = None if generative or reason else content_of(render(action.output, values))
    return Choice(
        "action",
        action.id,
        arguments=values,
        sources=sources,
        content=content,
        abstain_reason=reason,
        fill_generative=generative,
    )


def enum_choice(cand: Candidate, request: ChatView, filler: ArgumentFiller) -> Choice:
    """The enum property set to the chosen value (chosen by meaning from the whole turn); the
    other properties filled from the text."""
    schema = response_schema(request) or {}
    prop = (find_enum_property(schema) or ("", []))[0]
    others = {k: v for k, v in (schema.get("properties") or {}).items() if k != prop}
    message, text = value_turn(request)
    filled = filler.fill(_object_of(others, schema), text)
    obj = {prop: cand.value, **filled.arguments}
    chosen = in_message({**from_text(text, 0, len(text)), "source": "enum_choice"}, message)
    sources = {prop: chosen, **at_message(filled.sources, message)}
    reason = filled.abstain_reason
    if reason is None and not is_valid(obj, schema):
        reason = "invalid: could not fill the response schema"
    return Choice(
        "enum", cand.id, arguments=obj, sources=sources, content=json.dumps(obj), abstain_reason=reason
    )


def _object_of(properties: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """An object schema of some of `schema`'s properties, required as they are there."""
    required = [r for r in schema.get("required") or [] if r in properties]
    return {"type": "object", "properties": properties, "required": required}
