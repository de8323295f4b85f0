"""When the choice is local but the upstream writes the rest: the request it gets, the answer made of it."""

from __future__ import annotations

from typing import Any

from shadowswitch.answers import wire
from shadowswitch.engines.base import Choice
from shadowswitch.policy.models import Action, Policy
from shadowswitch.policy.templates import content_of, render
from shadowswitch.request import ChatView


def allowed_actions(policy: Policy | None) -> set[str] | None:
    if policy is None or policy.engine.candidates != "actions":
        return None
    names = set()
    for action in policy.actions:
        output = action.output
        names.add(output.get("action", action.id) if isinstance(output, dict) else action.id)
    return names


def chosen_action(policy: Policy, choice: Choice) -> Action | None:
    if choice.kind != "action":
        return None
    return next((a for a in policy.actions if a.id == choice.name), None)


def upstream_request(request: ChatView, choice: Choice) -> dict[str, Any]:
    """The body for the upstream when the choice is local but the upstream writes the rest."""
    body = request.raw
    if choice.kind in ("tool", "no_tool"):
        named = {"name": choice.name} if choice.kind == "tool" else None
        if request.legacy_functions:
            return {**body, "function_call": named or "none"}
        return {**body, "tool_choice": {"type": "function", "function": named} if named else "none"}
    if choice.kind == "action":
        ask = {"role": "system", "content": ACTION_TEXT_PROMPT.format(name=choice.name)}
        return {**body, "messages": [*body["messages"], ask], "response_format": None}
    return body


ACTION_TEXT_PROMPT = (
    "The next step is decided: {name}. Write only the text for it, as plain prose: "
    "no JSON, no action name, no preamble."
)


def with_action_text(body: dict[str, Any], action: Action, values: dict[str, Any]) -> dict[str, Any]:
    """Put the upstream's text into the action's output template: the agent's own format."""
    text = wire.message_of(body).get("content") or ""
    content = content_of(render(action.output, {**values, "text": text.strip()}))
    message = {"role": "assistant", "content": content}
    choices = [{"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}]
    return {**body, "choices": choices}
