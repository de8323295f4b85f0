"""The request bodies the API accepts; anything else is a 400/422 in OpenAI's error shape."""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from shadowswitch.errors import BadRequest, PayloadTooLarge
from shadowswitch.request import ChatRequest


def openapi_body(model: type[BaseModel]) -> dict[str, Any]:
    """An OpenAPI `requestBody` of `model`'s JSON schema, its `$defs` inlined: for the routes that
    read their body themselves (size limit, our error shape) so that the schema still says it."""
    schema = model.model_json_schema()
    defs = schema.pop("$defs", {})

    def inline(value: Any) -> Any:
        if isinstance(value, dict):
            if isinstance(value.get("$ref"), str):
                return inline(defs[value["$ref"].rsplit("/", 1)[-1]])
            return {k: inline(v) for k, v in value.items()}
        return [inline(v) for v in value] if isinstance(value, list) else value

    return {"required": True, "content": {"application/json": {"schema": inline(schema)}}}


def check_chat(request: ChatRequest) -> None:
    """What field types cannot say, refused with 400 as OpenAI refuses it: a function name offered
    twice, and a tool result that answers no tool call made earlier in the conversation."""
    field = "tools" if request.tools else "functions"
    names = [t.function.name for t in request.tools or []] or [f.name for f in request.functions or []]
    for index, name in enumerate(names):
        if name in names[:index]:
            param = f"{field}.{index}.function.name" if field == "tools" else f"{field}.{index}.name"
            raise BadRequest(f"{param}: the function name {name!r} is offered twice", param=param)
    calls: set[str] = set()
    for index, message in enumerate(request.messages):
        extra = message.model_extra or {}
        if message.role == "assistant" and extra.get("tool_calls") is not None:
            tool_calls = extra["tool_calls"]
            if not isinstance(tool_calls, list) or not all(isinstance(c, dict) for c in tool_calls):
                param = f"messages.{index}.tool_calls"
                raise BadRequest(f"{param}: expected a list of tool call objects", param=param)
            calls.update(c["id"] for c in tool_calls if isinstance(c.get("id"), str))
        elif message.role == "tool":
            param = f"messages.{index}.tool_call_id"
            call_id = extra.get("tool_call_id")
            if not isinstance(call_id, str) or not call_id:
                raise BadRequest(f"{param}: a tool message needs the id of the call it answers", param=param)
            if call_id not in calls:
                raise BadRequest(
                    f"{param}: {call_id!r} answers no tool call of an earlier assistant message", param=param
                )


class FeedbackRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    decision_id: str = Field(min_length=1, max_length=64)
    success: bool
    reason: str | None = Field(default=None, max_length=2000)


class RolloutChange(BaseModel):
    model_config = ConfigDict(extra="forbid")
    mode: Literal["off", "shadow", "canary"] | None = None
    percent: float | None = Field(default=None, ge=0, le=100)
    reason: str | None = Field(default=None, max_length=2000)


class RampCommand(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: Literal["start", "pause", "resume", "abort"]
    reason: str | None = Field(default=None, max_length=2000)


def parse_json(raw: bytes, limit: int, max_depth: int = 64) -> Any:
    """A request body as JSON: 413 over `limit` bytes; 400 when empty, not UTF-8 JSON (NaN and
    Infinity are not JSON), nested deeper than `max_depth`, or holding unpaired surrogates."""
    if len(raw) > limit:
        raise PayloadTooLarge(f"request body is {len(raw)} bytes; the limit is {limit}")
    if not raw.strip():
        raise BadRequest("request body is empty; expected a JSON object")
    try:
        encoding = json.detect_encoding(raw)
        data = _DECODER.decode(raw.decode(encoding, "surrogatepass"))  # as json.loads(raw) does
    except RecursionError:
        raise BadRequest(f"request body is nested deeper than {max_depth} levels") from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, over-long integers
        raise BadRequest(f"request body is not valid JSON: {exc}") from None
    # The tree is walked only when the bytes allow what it looks for: more brackets than
    # `max_depth` (a byte count is never below the bracket count, in any JSON encoding), or text
    # that may decode to a surrogate.
    deep = raw.count(b"{") + raw.count(b"[") > max_depth
    texts = encoding != "utf-8" or _MAYBE_SURROGATE.search(raw) is not None
    if deep or texts:
        _check_tree(data, max_depth, texts)
    return data


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


_DECODER = json.JSONDecoder(parse_constant=_no_constant)  # one, not one per request
# What may decode to an unpaired surrogate: a \uD800-\uDFFF escape, or one encoded in UTF-8.
_MAYBE_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]|\xed[\xa0-\xbf]")


def _check_tree(data: Any, max_depth: int, texts: bool = True) -> None:
    """Depth and (with `texts`) text of every value, iteratively (a recursive walk would itself
    overflow)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            if texts:
                _check_text(value)
        elif isinstance(value, dict | list):
            if depth > max_depth:
                raise BadRequest(f"request body is nested deeper than {max_depth} levels")
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                if texts and isinstance(key, str):
                    _check_text(key)
                stack.append((item, depth + 1))


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise BadRequest("request body holds an unpaired UTF-16 surrogate (\\ud800-\\udfff)") from None
