"""Actions: fill slots from the conversation (patterns first) and render the output template."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from shadowswitch.engines.local.arguments.grounding import Value, from_text, in_message
from shadowswitch.policy.models import Action, Slot
from shadowswitch.policy.templates import PLACEHOLDER, content_of, render

__all__ = ["PLACEHOLDER", "content_of", "pattern_values", "render", "slot_schema", "typed"]


def slot_schema(action: Action) -> dict[str, Any]:
    """The slots as a JSON schema, so the argument filler can fill the ones patterns miss."""
    props = {name: _slot_property(slot) for name, slot in action.slots.items()}
    required = [n for n, s in action.slots.items() if s.required]
    return {"type": "object", "properties": props, "required": required}


def _slot_property(slot: Slot) -> dict[str, Any]:
    prop: dict[str, Any] = {"type": slot.type}
    if slot.enum:
        prop["enum"] = slot.enum
    if slot.pattern:
        prop["pattern"] = slot.pattern
    return prop


def pattern_values(action: Action, turns: Sequence[tuple[int | None, str]]) -> dict[str, Value]:
    """Slots whose regex matches a user turn, newest turn first: (message index, text) each;
    every value with the span it matched."""
    found: dict[str, Value] = {}
    for name, slot in action.slots.items():
        if not slot.pattern:
            continue
        for message, text in turns:
            m = re.search(slot.pattern, text)
            if m:
                found[name] = typed(m.group(0), slot), in_message(from_text(text, *m.span()), message)
                break
    return found


def typed(text: str, slot: Slot) -> Any:
    try:
        if slot.type == "integer":
            return int(text.replace(",", ""))
        if slot.type == "number":
            return float(text.replace(",", ""))
    except ValueError:
        return text
    if slot.type == "boolean":
        return text.strip().lower() in ("true", "yes", "1", "on")
    return text
