"""OpenAI Chat Completions wire shapes: build a completion, split it into chunks, and join chunks."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any


def new_id(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:24]}"


def tool_call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": new_id("call_"),
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)},
    }


def completion(model: str, message: dict[str, Any], usage: dict[str, int] | None = None) -> dict[str, Any]:
    """A chat.completion as an upstream would send it."""
    finish = (
        "tool_calls"
        if message.get("tool_calls")
        else "function_call"
        if message.get("function_call")
        else "stop"
    )
    return {
        "id": new_id("chatcmpl-"),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": usage or {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


def chunks(body: dict[str, Any], include_usage: bool = False) -> Iterator[dict[str, Any]]:
    """The chat.completion.chunk sequence that streams `body`."""
    base = {k: body[k] for k in ("id", "created", "model")}
    base["object"] = "chat.completion.chunk"
    choice = body["choices"][0]
    message = choice["message"]

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    yield chunk({"role": "assistant", "content": ""})
    for index, call in enumerate(message.get("tool_calls") or []):
        function = call["function"]
        yield chunk(
            {
                "tool_calls": [
                    {
                        "index": index,
                        "id": call["id"],
                        "type": "function",
                        "function": {"name": function["name"], "arguments": ""},
                    }
                ]
            }
        )
        yield chunk({"tool_calls": [{"index": index, "function": {"arguments": function["arguments"]}}]})
    if message.get("function_call"):  # the legacy `functions` spelling
        call = message["function_call"]
        yield chunk({"function_call": {"name": call["name"], "arguments": ""}})
        yield chunk({"function_call": {"arguments": call["arguments"]}})
    if message.get("content"):
        yield chunk({"content": message["content"]})
    yield chunk({}, choice.get("finish_reason") or "stop")
    if include_usage:
        yield {**base, "choices": [], "usage": body.get("usage")}


class MessageAccumulator:
    """Joins streamed chunks back into one assistant message (for validation and the record)."""

    def __init__(self) -> None:
        self.content: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.function_call: dict[str, str] | None = None  # legacy `functions` answers
        self.usage: dict[str, Any] | None = None

    def add(self, chunk: dict[str, Any]) -> None:
        if chunk.get("usage"):
            self.usage = chunk["usage"]
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            if delta.get("content"):
                self.content.append(delta["content"])
            if isinstance(delta.get("function_call"), dict):
                self._add_function_call(delta["function_call"])
            for part in delta.get("tool_calls") or []:
                call = self.calls.setdefault(
                    part.get("index", 0),
                    {"id": None, "type": "function", "function": {"name": "", "arguments": ""}},
                )
                call["id"] = part.get("id") or call["id"]
                function = part.get("function") or {}
                call["function"]["name"] += function.get("name") or ""
                call["function"]["arguments"] += function.get("arguments") or ""

    def _add_function_call(self, part: dict[str, Any]) -> None:
        call = self.function_call = self.function_call or {"name": "", "arguments": ""}
        call["name"] += part.get("name") or ""
        call["arguments"] += part.get("arguments") or ""

    def message(self) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": "".join(self.content) or None}
        if self.calls:
            message["tool_calls"] = [self.calls[i] for i in sorted(self.calls)]
        if self.function_call:
            message["function_call"] = self.function_call
        return message


def sse(payload: dict[str, Any] | str) -> bytes:
    data = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
    return f"data: {data}\n\n".encode()


def message_of(body: dict[str, Any]) -> dict[str, Any]:
    choices = body.get("choices") or [{}]
    return dict(choices[0].get("message") or {})
