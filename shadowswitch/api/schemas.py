"""The request bodies the API accepts; anything else is a 400/422 in OpenAI's error shape."""

from __future__ import annotations

import json
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from shadowswitch.errors import BadRequest, PayloadTooLarge, Unprocessable

M = TypeVar("M", bound=BaseModel)


class Message(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[dict[str, Any]] | None = None


class Function(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str = Field(min_length=1, max_length=64)
    description: str | None = None
    parameters: dict[str, Any] | None = None


class Tool(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: Literal["function"] = "function"
    function: Function


class ChatRequest(BaseModel):
    """What shadowswitch reads of a Chat Completions body; the rest passes through untouched."""

    model_config = ConfigDict(extra="allow")
    model: str | None = None
    messages: list[Message] = Field(min_length=1)
    tools: list[Tool] | None = None
    tool_choice: str | dict[str, Any] | None = None
    functions: list[Function] | None = None  # the legacy spelling of `tools`
    function_call: str | dict[str, Any] | None = None  # ... and of `tool_choice`
    response_format: dict[str, Any] | None = None
    stream: StrictBool | None = None
    user: str | None = None
    metadata: dict[str, Any] | None = None


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


class RampAction(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: Literal["start", "pause", "resume", "abort"]
    reason: str | None = Field(default=None, max_length=2000)


def parse_json(raw: bytes, limit: int) -> Any:
    if len(raw) > limit:
        raise PayloadTooLarge(f"request body is {len(raw)} bytes; the limit is {limit}")
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BadRequest(f"request body is not valid JSON: {exc}") from None


def validated(model: type[M], data: Any) -> M:
    """Validate `data`, turning the first problem into a 400 naming the field."""
    if not isinstance(data, dict):
        raise BadRequest("request body must be a JSON object")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        param = ".".join(str(p) for p in first["loc"])
        error = BadRequest if model is ChatRequest else Unprocessable
        raise error(f"{param}: {first['msg']}", param=param) from None
