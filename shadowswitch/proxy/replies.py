"""The end of a request: its decision recorded, and the reply built (a body, or a replayed stream)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from shadowswitch.answers import wire
from shadowswitch.errors import ShadowswitchError
from shadowswitch.proxy.exchange import Context, Reply
from shadowswitch.store.recorder import DecisionRecorder
from shadowswitch.store.tables import Decision

if TYPE_CHECKING:
    from shadowswitch.server.metrics import Metrics

CUT_OFF = "cancelled before it was answered: the server is shutting down; retry"


class Records:
    """Writes each request's decision once, and counts it."""

    def __init__(self, recorder: DecisionRecorder, metrics: Metrics | None) -> None:
        self.recorder = recorder
        self.metrics = metrics
        self.spent: Callable[[Decision], None] | None = None  # a key's upstream money, for its budget

    def finish(self, ctx: Context, body: dict[str, Any]) -> Reply:
        """An answered request: its tokens and call recorded, and its reply in the agent's form."""
        usage = body.get("usage") or {}
        ctx.decision.prompt_tokens = usage.get("prompt_tokens")
        ctx.decision.completion_tokens = usage.get("completion_tokens")
        self.record(ctx, wire.message_of(body))
        if ctx.request.stream:
            stream = replay(wire.chunks(body, ctx.request.include_usage))
            return Reply(ctx.decision.id, ctx.task_type, ctx.decision.path, stream=stream)
        return Reply(ctx.decision.id, ctx.task_type, ctx.decision.path, body=body)

    def failure(self, ctx: Context, exc: ShadowswitchError) -> None:
        ctx.decision.error = exc.message
        ctx.decision.status_code = exc.status_code
        ctx.decision.valid = False
        self.record(ctx, {})

    def cancelled(self, ctx: Context) -> None:
        ctx.decision.error = CUT_OFF
        ctx.decision.status_code = 503
        self.record(ctx, {})

    def record(self, ctx: Context, message: dict[str, Any]) -> None:
        ctx.recorded = True
        ctx.decision.latency_ms = round(ctx.elapsed_ms(), 3)
        calls: list[str] = [
            c["id"] for c in message.get("tool_calls") or [] if isinstance(c, dict) and c.get("id")
        ]
        self.recorder.record(ctx.decision, calls)
        if self.metrics:
            self.metrics.observe(ctx.decision)
        if self.spent and ctx.decision.key_name:
            self.spent(ctx.decision)


def ms_since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


async def replay(chunks: Any) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield wire.sse(chunk)
    yield wire.sse("[DONE]")
