"""What the conversation's state says about the next step, besides the user's words: what the last
message is, whether the agent just asked the user to confirm and what the user answered, whether
the agent is walking a list of ids a tool result gave (some looked up, some not yet), and whether
its last reply asked the user something.

The trained choice model (`head.py`) reads these as shared features: after "yes, go ahead" to
the agent's confirmation the write tool follows, after "no" a text reply; a walk begun goes on
with the next id; a question answered by the user is followed by a call, a tool's result by a
reply. The words are English (the help desk's and the examples' agents); another language's
agent simply has no confirmation read, and learns from the other features.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from shadowswitch.engines.local.arguments.grounding import leaves
from shadowswitch.engines.local.arguments.memory import call_arguments, result_entries, value_key
from shadowswitch.request import ChatView, message_text

ASKS_TO_CONFIRM = re.compile(
    r"(?i)\b(?:confirm|shall i|should i|do you want me to|would you like me to|can i go ahead|"
    r"ok to proceed|proceed|go ahead)\b[^?]*\?"
)
YES = re.compile(r"(?i)^\W*(?:yes|yeah|yep|sure|ok|okay|please do|go ahead|confirm(?:ed)?|correct|do it)\b")
NO = re.compile(r"(?i)^\W*(?:no|nope|don'?t|do not|cancel|stop|wait|not now)\b")
MAX_OPEN = 3  # lists being walked beyond this count as this many


def conversation_state(request: ChatView) -> dict[str, Any]:
    """`last_role` (user | tool | assistant), `confirm` ("" | yes | no | other: the agent asked the
    user to confirm, and the user's answer), `open_walks` (lists of a tool result the agent began
    to look up one by one and has not finished), `asked` (the agent's last reply asks something)."""
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
    }


def _role(message: dict[str, Any]) -> str:
    role = str(message.get("role") or "")
    return "tool" if role in ("tool", "function") else role


def _confirmation(messages: tuple[dict[str, Any], ...]) -> str:
    """The user's answer when the last message is the user's and the agent's message before it
    asked for a confirmation; "" otherwise."""
    if len(messages) < 2 or _role(messages[-1]) != "user" or _role(messages[-2]) != "assistant":
        return ""
    if not ASKS_TO_CONFIRM.search(message_text(messages[-2])):
        return ""
    answer = message_text(messages[-1])
    return "yes" if YES.search(answer) else "no" if NO.search(answer) else "other"


def _open_walks(messages: tuple[dict[str, Any], ...]) -> int:
    """Lists of two values or more in the tool results, some of them sent by a call, not all."""
    used = {
        value_key(v)
        for m in messages
        if _role(m) == "assistant"
        for _, args in call_arguments(m)
        for v in leaves(args)
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
    for entry in result_entries(text):
        if entry.index >= 0:
            lists.setdefault(entry.pattern, set()).add(value_key(entry.value))
    return tuple(frozenset(v) for v in lists.values() if len(v) > 1)
