"""What the engine reads of the conversation: the text to choose by, and where values come from."""

from __future__ import annotations

import re

from shadowswitch.request import ChatView, message_text


def query_text(request: ChatView) -> str:
    """What the choice compares with the candidates: the last user turn, addresses by kind."""
    return intent_text(request.last_user_text) or " "


def user_turns(request: ChatView) -> list[tuple[int, str]]:
    """(message index, text) of every user turn with text, newest first."""
    turns = [(i, message_text(m)) for i, m in enumerate(request.messages) if m.get("role") == "user"]
    return [(i, t) for i, t in reversed(turns) if t.strip()]


def value_turn(request: ChatView) -> tuple[int | None, str]:
    """Where argument values are read: the last user turn, else the last message with text,
    with its index, so that a value's span points into it."""
    turns = user_turns(request)
    if turns:
        return turns[0]
    found = [(i, message_text(m)) for i, m in enumerate(request.messages) if message_text(m).strip()]
    return found[-1] if found else (None, "")


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
