"""What must not leak: personal data in stored prompts, and keys or internals in error messages.

Prompts are stored only with `SHADOWSWITCH_STORE_PROMPTS`, and then every string in them goes
through a redactor first: `default` (emails, phone numbers, card-like digit runs), `none`, or
`module:function`, any callable taking and returning a str.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable
from typing import Any

Redactor = Callable[[str], str]

EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
# 13-19 digits, optionally grouped by spaces or dashes: card numbers and their look-alikes.
CARD = re.compile(r"(?<![\w-])\d(?:[ -]?\d){12,18}(?![\w-])")
# A digit run with phone punctuation; kept as a phone number when it holds 9-15 digits.
PHONE = re.compile(r"(?<![\w+])\+?\(?\d[\d ().-]{6,}\d(?!\w)")
DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}/\d{1,2}/\d{2,4}")

SECRET = re.compile(r"(?i)\b(bearer|basic|api[-_ ]?key[\"':= ]+)\s*[\w.~+/=-]{6,}|\bsk-[\w-]{6,}")
TRACEBACK = re.compile(r"Traceback \(most recent call last\):.*", re.DOTALL)
SOURCE_PATH = re.compile(r"(?:[A-Za-z]:)?(?:[\\/][\w.@+-]+)+\.py\w?(?:[:, ]+line \d+|:\d+)?")
MAX_ERROR_CHARS = 500


def default_redactor(text: str) -> str:
    text = EMAIL.sub("[email]", text)
    text = CARD.sub("[card]", text)
    return PHONE.sub(_phone, text)


def _phone(match: re.Match[str]) -> str:
    found = match.group(0)
    digits = sum(c.isdigit() for c in found)
    return "[phone]" if 9 <= digits <= 15 and not DATE.search(found) else found


def no_redaction(text: str) -> str:
    return text


def load_redactor(spec: str) -> Redactor:
    """`default`, `none`, or `package.module:function`; ValueError when it cannot be loaded."""
    if spec == "default":
        return default_redactor
    if spec == "none":
        return no_redaction
    module_name, _, name = spec.partition(":")
    if not module_name or not name:
        raise ValueError(f"redact: expected 'default', 'none' or 'module:function', got {spec!r}")
    try:
        found = getattr(importlib.import_module(module_name), name)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"redact: cannot load {spec!r}: {exc}") from None
    if not callable(found):
        raise ValueError(f"redact: {spec!r} is not callable")
    redactor: Redactor = found
    return redactor


def redact_strings(value: Any, redactor: Redactor) -> Any:
    """A copy of a JSON value with every string (not the keys) passed through `redactor`."""
    if isinstance(value, str):
        return redactor(value)
    if isinstance(value, list):
        return [redact_strings(v, redactor) for v in value]
    if isinstance(value, dict):
        return {k: redact_strings(v, redactor) for k, v in value.items()}
    return value


def safe_text(text: str, secrets: Iterable[str] = ()) -> str:
    """An error message fit for a client, a log or a record: known secrets and anything shaped
    like a key or a bearer token masked, tracebacks and source paths cut, the length capped."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "[redacted]")
    text = SECRET.sub(lambda m: f"{m.group(1) or ''}[redacted]".strip(), text)
    text = TRACEBACK.sub("", text)
    text = SOURCE_PATH.sub("[internal]", text).strip()
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 1] + "…"
