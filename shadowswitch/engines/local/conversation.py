"""What the engine reads of the conversation: the text to choose by, and where values come from."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from shadowswitch.engines.local.arguments.memory import call_names
from shadowswitch.engines.local.conversation_state import before_asked_again, conversation_state
from shadowswitch.request import ChatView, message_text

REPLY_CHARS = 300  # of the agent's last reply: its question is at the end


def query_text(request: ChatView) -> str:
    """What the choice compares with the candidates: the last user turn, addresses by kind."""
    return intent_text(request.last_user_text) or " "


def reply_text(request: ChatView) -> str:
    """The agent's last text reply, its end (where the question to the user is): the context the
    choice reads beside the user's words; after a confirmation asked again, the first one, which
    names the action. "" when the agent has not replied in text yet."""
    for message in reversed(before_asked_again(request.messages)):
        if message.get("role") == "assistant" and (text := message_text(message).strip()):
            return text[-REPLY_CHARS:]
    return ""


def opening_text(request: ChatView) -> str:
    """The user's first words with text: what the conversation is for ("cancel my order"), which
    the later turns ("yes", an email address) no longer say. "" when it is the last user turn."""
    turns = user_turns(request)
    return intent_text(turns[-1][1]) if len(turns) > 1 else ""


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


def value_origin(source: dict[str, Any], request: ChatView) -> str | None:
    """Where a filled value came from, as learning counts it: the source's kind and, for a value
    read from a message, which one (`text:last_user`, `text:earlier_user`, `text:tool_result`,
    `enum_choice:last_user`, `default`, `learned`...). None for no source."""
    kind = source.get("source")
    if not isinstance(kind, str):
        return None
    index = source.get("message")
    if not isinstance(index, int) or not 0 <= index < len(request.messages):
        return kind
    role = request.messages[index].get("role")
    if role == "user":
        turns = user_turns(request)
        where = "last_user" if turns and turns[0][0] == index else "earlier_user"
    else:
        where = "tool_result" if role in ("tool", "function") else str(role)
    return f"{kind}:{where}"


def earlier_turns(request: ChatView) -> list[tuple[int, str]]:
    """(message index, text) of the user turns before the last one, newest first."""
    return user_turns(request)[1:]


def results_this_turn(request: ChatView) -> list[tuple[int, str]]:
    """(message index, text) of the tool results since the last user turn, in order."""
    last = max((i for i, m in enumerate(request.messages) if m.get("role") == "user"), default=-1)
    return [
        (i, message_text(m))
        for i, m in enumerate(request.messages)
        if i > last and m.get("role") in ("tool", "function") and message_text(m).strip()
    ]


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


def called_this_turn(request: ChatView, tool_error: str) -> set[str]:
    """The tools already called for the last user turn whose result came back without an error
    (`tool_error`: the policy's `feedback.tool_error_regex`; a call with no result counts as done).

    The engine reads the same user turn on the step after a call as on the step that made it,
    so it ranks that tool first again: nothing in its reading says whether the call was enough.
    A call whose result is an error may be made again, with other arguments."""
    after = _after_last_user(request.messages)
    results = {
        str(m.get("tool_call_id") or m.get("name")): message_text(m)
        for m in after
        if m.get("role") in ("tool", "function")
    }
    failed = re.compile(tool_error)
    done = set()
    for message in after:
        if message.get("role") != "assistant":
            continue
        for call_id, name in _named_calls(message):
            result = results.get(call_id)
            if result is None or not failed.search(result):
                done.add(name)
    return done


def repeats(tool: str, called: Collection[str], conversation: Mapping[str, Any]) -> bool:
    """`repeated_call`: `tool` was already called for this user turn (`called_this_turn`), and no
    list of ids is being walked (`conversation_state`): the next look-up of a walk is the same
    tool again, and is served. The decider's rule, and learning's when it replays a pair."""
    return tool in called and not conversation.get("open_walks")


@dataclass(frozen=True)
class TurnState:
    """The request's state within its user turn, which the trained choice model reads besides its words."""

    last_tool: str | None  # the last tool called since the last user message
    last_error: bool  # its result matched the policy's `feedback.tool_error_regex`
    step: int  # assistant messages since the last user message (0: the turn's first step)
    # the conversation's state (`conversation_state.py`): the last message's role, the user's
    # answer to a confirmation, lists being walked, whether the agent's last reply asked
    conversation: dict[str, Any] = field(default_factory=dict)


def turn_state(request: ChatView, tool_error: str) -> TurnState:
    after = _after_last_user(request.messages)
    step = sum(m.get("role") == "assistant" for m in after)
    last: tuple[str, str] | None = None
    for message in after:
        if message.get("role") == "assistant":
            calls = _named_calls(message)
            last = calls[-1] if calls else last
    conversation = conversation_state(request)
    if last is None:
        return TurnState(None, False, step, conversation)
    call_id, name = last
    results = (m for m in after if m.get("role") in ("tool", "function"))
    result = next(
        (message_text(m) for m in results if str(m.get("tool_call_id") or m.get("name")) == call_id), None
    )
    return TurnState(name, result is not None and bool(re.search(tool_error, result)), step, conversation)


def _after_last_user(messages: tuple[dict[str, Any], ...]) -> tuple[dict[str, Any], ...]:
    last = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    return messages[last + 1 :]


def _named_calls(message: dict[str, Any]) -> list[tuple[str, str]]:
    """(the id its result names, tool name) of an assistant message's calls, in order."""
    return list(call_names(message).items())
