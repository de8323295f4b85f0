"""Read an OpenAI Chat Completions request: message text, the last user turn, calls already made."""

from __future__ import annotations

import json
import re
from typing import Any


def message_text(message: dict[str, Any]) -> str:
    """The text of one message; content may be a string or a list of typed parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text", "") for p in content if isinstance(p, dict)]
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""


def messages(request: dict[str, Any]) -> list[dict[str, Any]]:
    found = request.get("messages")
    return [m for m in found if isinstance(m, dict)] if isinstance(found, list) else []


def last_user_text(request: dict[str, Any]) -> str:
    """The turn the decision answers: the last user message (else the last message with text)."""
    msgs = messages(request)
    for msg in reversed(msgs):
        if msg.get("role") == "user" and message_text(msg).strip():
            return message_text(msg).strip()
    for msg in reversed(msgs):
        if message_text(msg).strip():
            return message_text(msg).strip()
    return ""


def user_texts(request: dict[str, Any]) -> list[str]:
    """Every user turn, newest first: where argument values are looked for."""
    msgs = messages(request)
    texts = [message_text(m) for m in reversed(msgs) if m.get("role") == "user"]
    return [t for t in texts if t.strip()]


def canonical_arguments(arguments: Any) -> str:
    """One spelling for a set of arguments, so repeated calls compare equal."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError:
            return arguments.strip()
    return json.dumps(arguments, sort_keys=True, separators=(",", ":"))


def previous_calls(request: dict[str, Any]) -> set[tuple[str, str]]:
    """(tool name, canonical arguments) of every tool call the assistant already made."""
    calls: set[tuple[str, str]] = set()
    for msg in messages(request):
        if msg.get("role") != "assistant":
            continue
        for call in msg.get("tool_calls") or []:
            fn = call.get("function") if isinstance(call, dict) else None
            if isinstance(fn, dict) and isinstance(fn.get("name"), str):
                calls.add((fn["name"], canonical_arguments(fn.get("arguments", {}))))
    return calls


ADDRESSES = (
    (re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b"), "an email address"),
    (re.compile(r"\bhttps?://\S+|\bwww\.\S+"), "a link"),
)


def intent_text(text: str) -> str:
    """The text the choice embeds: addresses become their kind ("an email address").

    An address is a value, not an intent, and its many word pieces drown the rest of a short
    request under mean pooling ("Send an email to ann@corp.com" vs "send email": 0.31 → 0.81).
    """
    for pattern, kind in ADDRESSES:
        text = pattern.sub(kind, text)
    return text
