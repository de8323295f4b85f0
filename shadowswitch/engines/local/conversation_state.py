"""What the conversation's state says about the next step, besides the user's words: what the last
message is, whether the agent just asked the user to confirm and what the user answered, whether
the agent is walking a list of ids a tool result gave (some looked up, some not yet), whether its
last reply asked the user something, and how much of what the last tool result newly shows the user
described.

The trained choice model (`head.py`) reads these as shared features: after "yes, go ahead" to
the agent's confirmation the write tool follows, after "no" a text reply; a walk begun goes on
with the next id until a result shows what the user described ("the order with my boots"); a
question answered by the user is followed by a call, a tool's result by a reply. The words are
English (the help desk's and the examples' agents); another language's agent simply has no
confirmation read, and learns from the other features.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from shadowswitch.engines.local.arguments.grounding import leaves
from shadowswitch.engines.local.arguments.memory import Entry, call_arguments, result_entries, value_key
from shadowswitch.engines.local.languages.en.words import STOPWORDS, stem
from shadowswitch.request import ChatView, message_text

ASKS_TO_CONFIRM = re.compile(
    r"(?i)\b(?:confirm|shall i|should i|do you want me to|would you like me to|can i go ahead|"
    r"ok to proceed|proceed|go ahead|are you sure)\b[^?]*\?"
)
YES = re.compile(r"(?i)^\W*(?:yes|yeah|yep|sure|ok|okay|please do|go ahead|confirm(?:ed)?|correct|do it)\b")
NO = re.compile(r"(?i)^\W*(?:no|nope|don'?t|do not|cancel|stop|wait|not now)\b")
MAX_OPEN = 3  # lists being walked beyond this count as this many
WORD = re.compile(r"[^\W\d_]{3,}")  # a content word: letters only, ids and numbers are not one


def conversation_state(request: ChatView) -> dict[str, Any]:
    """`last_role` (user | tool | assistant), `confirm` ("" | yes | again | no | other: the agent
    asked the user to confirm, and the user's answer), `open_walks` (lists of a tool result the agent began
    to look up one by one and has not finished), `asked` (the agent's last reply asks something),
    `found` (0-1: how much of a value the last tool result newly shows the user's words name)."""
    messages = request.messages
    last_role = _role(messages[-1]) if messages else ""
    reply = next(
        (message_text(m) for m in reversed(messages) if _role(m) == "assistant" and message_text(m)), ""
    )
    return {
        "last_role": last_role,
        "confirm": _confirmation(messages),
        "open_walks": min(MAX_OPEN, _open_walks(messages)),
        "asked": "?" in reply[-200:],
        "found": _found(messages),
    }


def _role(message: dict[str, Any]) -> str:
    role = str(message.get("role") or "")
    return "tool" if role in ("tool", "function") else role


def before_asked_again(messages: tuple[dict[str, Any], ...]) -> tuple[dict[str, Any], ...]:
    """`messages` up to the user's answer to the first confirmation of a run: a confirmation
    asked again after a yes ("This can't be undone. Are you sure?") says nothing of what it
    confirms, the first one does ("Shall I switch order 1234 to your Amex?")."""
    end = len(messages)
    while _confirmation(messages[:end]) == "again":
        end -= 2
    return messages[:end]


def _confirmation(messages: tuple[dict[str, Any], ...]) -> str:
    """The user's answer when the last message is the user's and the agent's message before it
    asked for a confirmation; "" otherwise. "again": a yes to a confirmation the agent asked for
    once more after a first yes ("Are you sure?"), after which a model rarely asks a third time."""
    if len(messages) < 2 or _role(messages[-1]) != "user" or _role(messages[-2]) != "assistant":
        return ""
    if not ASKS_TO_CONFIRM.search(message_text(messages[-2])):
        return ""
    answer = message_text(messages[-1])
    if YES.search(answer):
        return "again" if _confirmation(messages[:-2]) == "yes" else "yes"
    return "no" if NO.search(answer) else "other"


def _found(messages: tuple[dict[str, Any], ...]) -> float:
    """When the last message is a tool's result: the largest share of the content words of one of
    its text values that the user's messages contain, among the values no earlier result showed
    (the customer's own address, shown again with an order, says nothing about the order)."""
    if not messages or _role(messages[-1]) != "tool":
        return 0.0
    said = {w for m in messages if _role(m) == "user" for w in _words(message_text(m))}
    if not said:
        return 0.0
    seen = {
        value_key(e.value) for m in messages[:-1] if _role(m) == "tool" for e in _entries(message_text(m))
    }
    best = 0.0
    for entry in _entries(message_text(messages[-1])):
        if isinstance(entry.value, str) and value_key(entry.value) not in seen:
            words = _words(entry.value)
            if words:
                best = max(best, len(words & said) / len(words))
    return round(best, 3)


def _named(value: str, said: str) -> bool:
    return len(value) >= 3 and value in said


def _words(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in WORD.findall(text.lower()) if w not in STOPWORDS)


@functools.lru_cache(maxsize=1024)
def _entries(text: str) -> tuple[Entry, ...]:
    """A tool result's values (cached: a result is read again at every later step)."""
    return tuple(result_entries(text))


def _open_walks(messages: tuple[dict[str, Any], ...]) -> int:
    """Lists of two values or more in the tool results, some of them sent by a call, not all; a
    value the user wrote does not count as walked ("cancel order 1234" looks up that one order of
    the customer's list: no walk)."""
    said = " ".join(message_text(m) for m in messages if _role(m) == "user").lower()
    used = {
        value_key(v)
        for m in messages
        if _role(m) == "assistant"
        for _, args in call_arguments(m)
        for v in leaves(args)
        if not _named(str(v).lower(), said)
    }
    count = 0
    for m in messages:
        if _role(m) != "tool":
            continue
        for values in _lists(message_text(m)):
            taken = used.intersection(values)
            count += int(bool(taken) and len(taken) < len(values))
    return count


@functools.lru_cache(maxsize=1024)
def _lists(text: str) -> tuple[frozenset[str], ...]:
    """The lists of two values or more of a tool result's text (cached: a result is read again at
    every later step of its conversation)."""
    lists: dict[str, set[str]] = {}
    for entry in _entries(text):
        if entry.index >= 0:
            lists.setdefault(entry.pattern, set()).add(value_key(entry.value))
    return tuple(frozenset(v) for v in lists.values() if len(v) > 1)
