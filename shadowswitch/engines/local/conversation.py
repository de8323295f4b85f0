"""What the engine reads of the conversation: the text to choose by, and where values come from."""

from __future__ import annotations

import re

from shadowswitch.request import ChatView


def query_text(request: ChatView) -> str:
    """What the choice compares with the candidates: the last user turn, addresses by kind."""
    return intent_text(request.last_user_text) or " "


def value_text(request: ChatView) -> str:
    """Where argument values come from: the last user turn with text."""
    return request.user_texts[0] if request.user_texts else request.last_user_text


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
