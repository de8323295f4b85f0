"""Is an answer valid for its request, and do two answers agree? Pure functions."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import jsonschema
from jsonschema.exceptions import SchemaError, ValidationError

from shadowswitch.request import ChatView, normalise


@dataclass(frozen=True)
class Validity:
    valid: bool
    reason: str | None = None
    chosen: str | None = None  # tool name or action, for the record
    arguments: Any = None


@dataclass(frozen=True)
class Call:
    """What an answer chose, in a comparable form."""

    name: str | None  # tool / action name; None for a plain answer
    arguments: Any = None


def check_answer(
    request: ChatView, message: dict[str, Any], allowed_actions: set[str] | None = None
) -> Validity:
    """Validate an assistant message against what the request offered."""
    functions = called_functions(message)
    if functions:
        return _check_tool_calls({t.name: t.parameters for t in request.tools}, functions)
    content = message.get("content")
    if allowed_actions is not None:
        return _check_action(content, allowed_actions)
    return _check_format(request.response_format, content)


def called_functions(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The `function` part of each tool call, or the legacy `function_call`, of a message."""
    calls = message.get("tool_calls") or []
    if not calls and isinstance(message.get("function_call"), dict):
        return [message["function_call"]]
    return [(call.get("function") or {}) if isinstance(call, dict) else {} for call in calls]


def _check_tool_calls(offered: dict[str, Any], functions: list[dict[str, Any]]) -> Validity:
    first = None
    for function in functions:
        name = function.get("name")
        if name not in offered:
            return Validity(False, f"tool {name!r} was not offered", name)
        try:
            arguments = json.loads(function.get("arguments") or "{}")
        except (TypeError, json.JSONDecodeError) as exc:
            return Validity(False, f"arguments of {name} are not JSON: {exc}", name)
        problem = schema_problem(offered[name], arguments)
        if problem:
            return Validity(False, f"arguments of {name}: {problem}", name, arguments)
        first = first or Validity(True, None, name, arguments)
    return first or Validity(False, "empty tool_calls")


def _check_action(content: Any, allowed: set[str]) -> Validity:
    try:
        parsed = json.loads(content) if isinstance(content, str) else None
    except json.JSONDecodeError as exc:
        return Validity(False, f"content is not JSON: {exc}")
    if not isinstance(parsed, dict) or parsed.get("action") not in allowed:
        action = parsed.get("action") if isinstance(parsed, dict) else None
        return Validity(False, f"action {action!r} is not allowed", action)
    return Validity(True, None, parsed["action"], parsed.get("action_input"))


def _check_format(response_format: Any, content: Any) -> Validity:
    kind = response_format.get("type") if isinstance(response_format, dict) else None
    if kind not in ("json_object", "json_schema"):
        return Validity(content is not None, None if content is not None else "no content")
    try:
        parsed = json.loads(content) if isinstance(content, str) else None
    except json.JSONDecodeError as exc:
        return Validity(False, f"content is not JSON: {exc}")
    if kind == "json_schema":
        schema = (response_format.get("json_schema") or {}).get("schema") or {}
        problem = schema_problem(schema, parsed)
        if problem:
            return Validity(False, problem, None, parsed)
    elif not isinstance(parsed, dict):
        return Validity(False, "content is not a JSON object")
    return Validity(True, None, None, parsed)


def schema_problem(schema: dict[str, Any], value: Any) -> str | None:
    """None when `value` fits `schema`; else a short reason."""
    try:
        validator = _validator(json.dumps(schema, sort_keys=True))
    except SchemaError:
        return None  # the agent's own schema is broken: nothing to hold the answer to
    error = next(iter(validator.iter_errors(value)), None)
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path)
    return f"{where + ': ' if where else ''}{error.message}"[:300]


@lru_cache(maxsize=512)
def _validator(schema_json: str) -> jsonschema.protocols.Validator:
    schema = json.loads(schema_json)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    cls.check_schema(schema)
    return cls(schema)


def agree(a: Call, b: Call) -> bool:
    """Same tool/action and the same arguments after normalising."""
    return a.name == b.name and normalise(a.arguments) == normalise(b.arguments)


__all__ = ["Call", "ValidationError", "Validity", "agree", "check_answer", "schema_problem"]
