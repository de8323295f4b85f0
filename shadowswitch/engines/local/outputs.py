"""Turn a chosen action or enum value into the Choice the proxy serves (content rendered)."""

from __future__ import annotations

import json

from shadowswitch.engines.base import Choice
from shadowswitch.engines.local.arguments.filler import ArgumentFiller
from shadowswitch.engines.local.arguments.slots import content_of, pattern_values, render, slot_schema
from shadowswitch.engines.local.choice.candidates import Candidate, response_schema
from shadowswitch.engines.local.schema import find_enum_property, is_valid
from shadowswitch.policy.models import Action
from shadowswitch.request import ChatView


def action_choice(cand: Candidate, request: ChatView, filler: ArgumentFiller) -> Choice:
    action: Action = cand.value
    texts = request.user_texts or [request.last_user_text]
    values = pattern_values(action, texts)
    missing = [n for n, s in action.slots.items() if s.pattern and s.required and n not in values]
    if missing and action.fill != "generative":
        return Choice("action", action.id, arguments=values,
                      abstain_reason=f"missing_slot {', '.join(missing)}")  # fmt: skip
    schema = slot_schema(action)
    rest = {k: v for k, v in schema["properties"].items() if k not in values and "pattern" not in v}
    sub = {"type": "object", "properties": rest,
           "required": [r for r in schema["required"] if r in rest]}  # fmt: skip
    values |= filler.fill(sub, texts[0] if texts else "")
    if action.fill == "generative":
        return Choice("action", action.id, arguments=values, fill_generative=True)
    return Choice("action", action.id, arguments=values,
                  content=content_of(render(action.output, values)))  # fmt: skip


def enum_choice(cand: Candidate, request: ChatView, filler: ArgumentFiller) -> Choice:
    """The enum property set to the chosen value; other required properties filled too."""
    schema = response_schema(request) or {}
    prop = (find_enum_property(schema) or ("", []))[0]
    others = {k: v for k, v in (schema.get("properties") or {}).items() if k != prop}
    sub = {"type": "object", "properties": others,
           "required": [r for r in schema.get("required") or [] if r in others]}  # fmt: skip
    obj = {prop: cand.value, **filler.fill(sub, request.last_user_text)}
    reason = None if is_valid(obj, schema) else "invalid: could not fill the response schema"
    return Choice("enum", cand.id, arguments=obj, content=json.dumps(obj), abstain_reason=reason)
