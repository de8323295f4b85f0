"""A Chat Completions request: the body's schema, and one typed view of it built once in the API
layer and read by every step.

Classification, routing, candidates, validation and feedback all read the request through
this view, so they cannot drift apart (a tool offered through the legacy `functions` field is
offered to every step alike). The body itself is forwarded upstream as the agent sent it (`raw`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from shadowswitch.errors import BadRequest, Unprocessable

M = TypeVar("M", bound=BaseModel)
MAX_TOOLS = 128  # OpenAI's own limit on `tools`
ToolMode = Literal["auto", "none", "required", "forced"]


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
    tools: list[Tool] | None = Field(default=None, max_length=MAX_TOOLS)
    tool_choice: str | dict[str, Any] | None = None
    functions: list[Function] | None = Field(default=None, max_length=MAX_TOOLS)  # legacy `tools`
    function_call: str | dict[str, Any] | None = None  # ... and of `tool_choice`
    response_format: dict[str, Any] | None = None
    stream: StrictBool | None = None
    user: str | None = None
    metadata: dict[str, Any] | None = None


@dataclass(frozen=True)
class OfferedTool:
    name: str
    description: str
    parameters: dict[str, Any]  # the JSON schema as sent; {"type": "object"} when absent


@dataclass(frozen=True)
class ChatView:
    raw: dict[str, Any]
    model: str | None
    messages: tuple[dict[str, Any], ...]
    tools: tuple[OfferedTool, ...]
    tool_mode: ToolMode
    forced_tool: str | None  # the tool `tool_choice` (or `function_call`) names
    legacy_functions: bool  # tools came as `functions`: answer with `function_call`
    response_format: dict[str, Any] | None
    stream: bool
    user: str | None

    @classmethod
    def parse(cls, raw: Any) -> ChatView:
        """Validate a request body (BadRequest naming the field when it is not one) and view it."""
        return cls.of(validated(ChatRequest, raw), raw)

    @classmethod
    def of(cls, request: ChatRequest, raw: dict[str, Any]) -> ChatView:
        legacy = not request.tools and bool(request.functions)
        specs = [t.function for t in request.tools or []] or list(request.functions or [])
        choice = request.function_call if legacy and request.tool_choice is None else request.tool_choice
        mode, forced = _tool_choice(choice)
        return cls(
            raw=raw,
            model=request.model,
            messages=tuple(m.model_dump(exclude_unset=True) for m in request.messages),
            tools=_unique(
                OfferedTool(f.name, (f.description or "").strip(), _schema(f.parameters)) for f in specs
            ),
            tool_mode=mode,
            forced_tool=forced,
            legacy_functions=legacy,
            response_format=request.response_format,
            stream=bool(request.stream),
            user=request.user,
        )

    def tool(self, name: str | None) -> OfferedTool | None:
        return next((t for t in self.tools if t.name == name), None)

    @property
    def include_usage(self) -> bool:
        options = self.raw.get("stream_options")
        return isinstance(options, dict) and bool(options.get("include_usage"))

    @cached_property
    def system_prompt(self) -> str:
        return "\n".join(message_text(m) for m in self.messages if m.get("role") in ("system", "developer"))

    @cached_property
    def user_texts(self) -> list[str]:
        """Every user turn with text, newest first: where argument values are looked for."""
        texts = [message_text(m) for m in reversed(self.messages) if m.get("role") == "user"]
        return [t for t in texts if t.strip()]

    @cached_property
    def last_user_text(self) -> str:
        """The turn a decision answers: the last user message (else the last message with text)."""
        if self.user_texts:
            return self.user_texts[0].strip()
        texts = [message_text(m).strip() for m in reversed(self.messages)]
        return next((t for t in texts if t), "")

    @cached_property
    def previous_calls(self) -> frozenset[tuple[str, str]]:
        """(tool name, canonical arguments) of every call the assistant already made."""
        calls = set()
        for message in self.messages:
            if message.get("role") == "assistant":
                for name, arguments in _calls_of(message):
                    calls.add((name, canonical_arguments(arguments)))
        return frozenset(calls)

    @cached_property
    def tool_results(self) -> dict[str, str]:
        """tool_call_id → result text, for the tool messages after the last assistant turn."""
        results: dict[str, str] = {}
        for message in self.messages:
            if message.get("role") == "assistant":
                results = {}
            elif message.get("role") == "tool" and isinstance(message.get("tool_call_id"), str):
                results[message["tool_call_id"]] = message_text(message)
        return results

    @cached_property
    def opening(self) -> list[str]:
        """The conversation's opening, up to and with its first user turn: its identity."""
        opening = []
        for message in self.messages:
            opening.append(f"{message.get('role')}:{message_text(message)}")
            if message.get("role") == "user":
                break
        return opening


def message_text(message: dict[str, Any]) -> str:
    """The text of a message, whether `content` is a string or a list of typed parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""


def canonical_arguments(arguments: Any) -> str:
    """One spelling for a set of arguments, so repeated calls compare equal."""
    if isinstance(arguments, str):
        text = arguments.strip()
        try:
            arguments = json.loads(text) if text else {}
        except json.JSONDecodeError:
            return text
    return json.dumps(arguments, sort_keys=True, separators=(",", ":"))


def normalise(value: Any) -> Any:
    """The form two argument values compare equal in: text by its words, case aside; numbers as
    floats; empty entries left out."""
    if isinstance(value, str):
        return " ".join(value.strip().lower().split())
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, dict):
        return {k: normalise(v) for k, v in value.items() if v not in (None, "", [], {})}
    if isinstance(value, list | tuple):
        return [normalise(v) for v in value]
    return value


def _calls_of(message: dict[str, Any]) -> list[tuple[str, Any]]:
    """(name, arguments) of an assistant message's tool calls, or of its legacy function_call."""
    functions = [c.get("function") for c in message.get("tool_calls") or [] if isinstance(c, dict)]
    functions.append(message.get("function_call"))
    return [
        (f["name"], f.get("arguments", {}))
        for f in functions
        if isinstance(f, dict) and isinstance(f.get("name"), str)
    ]


def _tool_choice(choice: Any) -> tuple[ToolMode, str | None]:
    """`"auto"`, `"none"`, `"required"`, or a named tool in either spelling
    (`{"type": "function", "function": {"name": ...}}`, legacy `{"name": ...}`)."""
    if isinstance(choice, dict):
        function = choice.get("function")
        name = function.get("name") if isinstance(function, dict) else choice.get("name")
        if isinstance(name, str) and name:
            return "forced", name
    if choice in ("none", "required"):
        return choice, None
    return "auto", None


def _schema(parameters: dict[str, Any] | None) -> dict[str, Any]:
    return parameters if isinstance(parameters, dict) and parameters else {"type": "object"}


def _unique(tools: Any) -> tuple[OfferedTool, ...]:
    """The first spelling of each name wins (a tool offered twice is offered once)."""
    seen: dict[str, OfferedTool] = {}
    for tool in tools:
        seen.setdefault(tool.name, tool)
    return tuple(seen.values())


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
