"""The request's state within its user turn, which the trained choice model reads besides its words."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from shadowswitch.learning.conversation_state import conversation_state
from shadowswitch.request import ChatView, message_text


@dataclass(frozen=True)
class TurnState:
    last_tool: str | None  # the last tool called since the last user message
    last_error: bool  # its result matched the policy's `feedback.tool_error_regex`
    step: int  # assistant messages since the last user message (0: the turn's first step)
    # the conversation's state (`conversation_state.py`): the last message's role, the user's
    # answer to a confirmation, lists being walked, whether the agent's last reply asked
    conversation: dict[str, Any] = field(default_factory=dict)


def turn_state(request: ChatView, tool_error: str) -> TurnState:
    messages = request.messages
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    after = messages[last_user + 1 :]
    step = sum(m.get("role") == "assistant" for m in after)
    last: tuple[str, str] | None = None
    for message in after:
        if message.get("role") == "assistant":
            calls = _calls(message)
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


def _calls(message: dict[str, Any]) -> list[tuple[str, str]]:
    out = []
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            out.append((str(call.get("id")), function["name"]))
    legacy = message.get("function_call")
    if isinstance(legacy, dict) and isinstance(legacy.get("name"), str):
        out.append((legacy["name"], legacy["name"]))
    return out
