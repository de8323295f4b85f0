"""The generative upstream the travel agent normally talks to, offline: an OpenAI-compatible server.

`simulated` (default): the clearly labelled simulated large model (simulated.py), with a seeded
latency of `latency` seconds (low-high) per call and a small error rate. `small-lm`: the embedded
SmolLM2-135M really generates each answer (small_lm.py); slow on a CPU, and often wrong.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from examples.demo.simulated import BANNER, MODEL_NAME, Answer, SimulatedModel


class Generator(Protocol):
    name: str
    banner: str

    def answer(self, body: dict[str, Any]) -> Answer: ...


@dataclass
class UpstreamStats:
    calls: int = 0
    tool_calls: int = 0
    malformed: int = 0
    seconds: list[float] = field(default_factory=list)


@dataclass
class Simulated:
    """The simulated model behind a seeded latency."""

    latency: tuple[float, float] = (1.0, 3.0)
    error_rate: float = 0.03
    seed: int = 7
    name: str = MODEL_NAME
    banner: str = BANNER
    model_class: type[SimulatedModel] = SimulatedModel  # another example agent's subclass

    def __post_init__(self) -> None:
        self.model = self.model_class(self.error_rate, self.seed)
        self.rng = random.Random(self.seed)

    def answer(self, body: dict[str, Any]) -> Answer:
        return self.model.answer(body)

    def delay(self) -> float:
        low, high = self.latency
        return self.rng.uniform(low, high)


def create_upstream(generator: Generator) -> FastAPI:
    app = FastAPI(title=generator.banner)
    stats = UpstreamStats()
    app.state.stats = stats
    lock = asyncio.Lock()  # small-lm: one generation at a time (two cores)

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        return {"object": "list", "data": [{"id": generator.name, "object": "model", "owned_by": "demo"}]}

    @app.get("/stats")
    async def read_stats() -> dict[str, Any]:
        return {"banner": generator.banner, **stats.__dict__}

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> Response:
        started = time.perf_counter()
        try:
            body = await request.json()
        except ValueError:
            return _error(400, "the body is not JSON")
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return _error(400, "'messages' is required")
        delay = getattr(generator, "delay", None)
        if delay is not None:
            await asyncio.sleep(delay())
            answer = generator.answer(body)
        else:
            async with lock:
                answer = await anyio.to_thread.run_sync(generator.answer, body)
        stats.calls += 1
        stats.tool_calls += bool(answer.message.get("tool_calls"))
        stats.malformed += answer.malformed
        stats.seconds.append(round(time.perf_counter() - started, 3))
        completion = _completion(generator.name, answer.message)
        if body.get("stream"):
            return StreamingResponse(_stream(completion), media_type="text/event-stream")
        return JSONResponse(completion)

    return app


def _error(status: int, message: str) -> JSONResponse:
    body = {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": None}}
    return JSONResponse(body, status_code=status)


def _completion(model: str, message: dict[str, Any]) -> dict[str, Any]:
    text = json.dumps(message)
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:16]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": 600,
            "completion_tokens": len(text) // 4,
            "total_tokens": 600 + len(text) // 4,
        },
    }


async def _stream(completion: dict[str, Any]) -> Any:
    """The whole answer as one delta, then the finish: enough for any OpenAI client."""
    choice = completion["choices"][0]
    base = {k: completion[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
    delta = dict(choice["message"])
    for i, call in enumerate(delta.get("tool_calls") or []):
        call["index"] = i
    for piece in (
        {"index": 0, "delta": delta, "finish_reason": None},
        {"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]},
    ):
        yield f"data: {json.dumps({**base, 'choices': [piece]})}\n\n"
    yield "data: [DONE]\n\n"
