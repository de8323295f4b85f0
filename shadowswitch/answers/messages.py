"""Answers as messages and calls: what a local choice says, what a message chose, do two agree,
and the decision-record fields they fill."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from shadowswitch.answers import wire
from shadowswitch.answers.validate import Call, Validity, agree, called_functions
from shadowswitch.engines.base import Choice
from shadowswitch.store.tables import Decision


def local_message(choice: Choice, legacy_functions: bool = False) -> dict[str, Any]:
    """The assistant message a local choice answers with, in the agent's own format
    (`function_call` for an agent that offered legacy `functions`)."""
    if choice.kind == "tool" and choice.name:
        call = wire.tool_call(choice.name, choice.arguments or {})
        if legacy_functions:
            return {"role": "assistant", "content": None, "function_call": call["function"]}
        return {"role": "assistant", "content": None, "tool_calls": [call]}
    return {"role": "assistant", "content": choice.content or ""}


# The stored object's key order, from before the trace had its own dataclass.
_RECORD_ORDER = ("kind", "name", "arguments", "sources", "content", "candidates", "confidence", "margin")


def choice_json(choice: Choice) -> dict[str, Any]:
    """The choice as the decision record keeps it: one flat object, its trace's fields beside the
    decision's (the stored JSON's shape predates the split)."""
    flat = asdict(choice)
    trace = flat.pop("trace")
    for vector in ("vector", "context", "opening"):  # kept as an exemplar (learning), not in the record
        trace.pop(vector, None)
    flat.update(trace)
    data = {key: flat.pop(key) for key in _RECORD_ORDER} | flat
    data["path"] = "local"
    return data


def apply_choice(decision: Decision, choice: Choice) -> None:
    decision.chosen = choice.name if choice.kind != "no_tool" else "__no_tool__"
    decision.arguments = choice.arguments
    decision.argument_sources = choice.sources or None
    decision.confidence = round(choice.confidence, 6)
    decision.margin = round(choice.margin, 6)
    decision.abstain_reason = choice.abstain_reason
    decision.candidates = [asdict(c) for c in choice.trace.candidates]
    decision.timings_ms = {k: round(v, 3) for k, v in choice.trace.timings_ms.items()}
    decision.state_version = choice.trace.memory_version


def apply_validity(decision: Decision, validity: Validity) -> None:
    decision.valid = validity.valid
    decision.invalid_reason = validity.reason
    if decision.chosen is None:
        decision.chosen = validity.chosen
        decision.arguments = validity.arguments


def call_of(message: dict[str, Any]) -> Call:
    """What an assistant message chose: its first tool call, a JSON action, or plain text."""
    functions = called_functions(message)
    if functions:
        function = functions[0]
        try:
            arguments = json.loads(function.get("arguments") or "{}")
        except json.JSONDecodeError:
            arguments = function.get("arguments")
        return Call(function.get("name"), arguments)
    content = message.get("content")
    try:
        parsed = json.loads(content) if isinstance(content, str) else None
    except json.JSONDecodeError:
        parsed = None
    if isinstance(parsed, dict) and "action" in parsed:
        return Call(str(parsed["action"]), parsed.get("action_input"))
    return Call(None, None)


def same_tool(local: dict[str, Any], generative: dict[str, Any]) -> bool:
    """The same tool or action chosen (or both answered in text), whatever the arguments."""
    return call_of(local).name == call_of(generative).name


def same_call(local: dict[str, Any], generative: dict[str, Any]) -> bool:
    return agree(call_of(local), call_of(generative))
