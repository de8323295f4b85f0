"""An upstream that answers each request with the call a recorded agent made: the "large model"
of learning benchmarks and tests. A real HTTP server.

Answers are registered by the request's last user message (`POST /answers`, a JSON object of
text → `{"name": tool, "arguments": {...}}` or `{"content": text}`; "text#N" for the step after N
tool results); a request it has no answer
for gets the text "no answer recorded". `GET /requests` counts what it received.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from fastapi import FastAPI, Request


def create_replay_upstream() -> FastAPI:
    app = FastAPI(title="replay upstream")
    answers: dict[str, dict[str, Any]] = {}
    seen = {"requests": 0}

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        return {"object": "list", "data": [{"id": "replay", "object": "model"}]}

    @app.post("/answers")
    async def register(request: Request) -> dict[str, int]:
        answers.update(await request.json())
        return {"answers": len(answers)}

    @app.get("/requests")
    async def requests_seen() -> dict[str, int]:
        return seen

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> dict[str, Any]:
        body = await request.json()
        seen["requests"] += 1
        text = last_user(body)
        answer = answers.get(f"{text}#{steps(body)}") or answers.get(text)
        return completion(body, message_for(answer, body))

    return app


def last_user(body: dict[str, Any]) -> str:
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "user" and isinstance(message.get("content"), str):
            return str(message["content"])
    return ""


def steps(body: dict[str, Any]) -> int:
    """Tool results since the last user message: an answer registered as "text#N" is the one
    for the step after N results (a multi-step turn), before the answer for the text alone."""
    count = 0
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "user":
            break
        count += message.get("role") == "tool"
    return count


def message_for(answer: dict[str, Any] | None, body: dict[str, Any]) -> dict[str, Any]:
    if answer is None:
        return {"role": "assistant", "content": "no answer recorded"}
    forced = body.get("tool_choice")
    if isinstance(forced, dict):  # the proxy chose locally and asks only for the arguments
        answer = {**answer, "name": forced.get("function", {}).get("name", answer.get("name"))}
    if "name" not in answer:
        return {"role": "assistant", "content": answer.get("content", "")}
    call = {
        "id": f"call_{uuid.uuid4().hex[:24]}",
        "type": "function",
        "function": {"name": answer["name"], "arguments": json.dumps(answer.get("arguments") or {})},
    }
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def completion(body: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
    finish = "tool_calls" if "tool_calls" in message else "stop"
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "replay"),
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": finish,
            }
        ],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }
