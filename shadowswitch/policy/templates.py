"""Action output templates: `"{slot}"` placeholders filled with values, as the agent's parser expects."""

from __future__ import annotations

import json
import re
from typing import Any

PLACEHOLDER = re.compile(r"\{(\w+)\}")


def render(template: Any, values: dict[str, Any]) -> Any:
    """Placeholders replaced; a string that is exactly one placeholder takes the typed value."""
    if isinstance(template, dict):
        return {k: render(v, values) for k, v in template.items()}
    if isinstance(template, list):
        return [render(v, values) for v in template]
    if not isinstance(template, str):
        return template
    whole = PLACEHOLDER.fullmatch(template)
    if whole and whole.group(1) in values:
        return values[whole.group(1)]
    return PLACEHOLDER.sub(lambda m: _as_text(values.get(m.group(1), m.group(0))), template)


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def content_of(rendered: Any) -> str:
    """The message content: a rendered string as is, anything else as JSON."""
    return rendered if isinstance(rendered, str) else json.dumps(rendered)
