"""Decision records: a batching writer off the event loop, and the queries that read them back."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import anyio
from sqlalchemy import Engine, delete
from sqlmodel import Session, col, select

from shadowswitch.store.tables import Decision, ToolCall

log = logging.getLogger(__name__)


@dataclass
class _Insert:
    decision: Decision
    tool_call_ids: list[str] = field(default_factory=list)


@dataclass
class _Update:
    decision_id: str
    fields: dict[str, Any]


class DecisionStore:
    """Synchronous queries; call them from a worker thread (`anyio.to_thread.run_sync`)."""

    def __init__(self, engine: Engine):
        self.engine = engine

    def write(self, ops: list[_Insert | _Update]) -> None:
        # The pipeline still reads these objects (background shadow runs): keep them loaded.
        with Session(self.engine, expire_on_commit=False) as session:
            for op in ops:
                if isinstance(op, _Insert):
                    session.add(op.decision)
                    for call_id in op.tool_call_ids:
                        session.merge(ToolCall(id=call_id, decision_id=op.decision.id))
                else:
                    session.flush()
                    row = session.get(Decision, op.decision_id)
                    if row is not None:
                        for key, value in op.fields.items():
                            setattr(row, key, value)
            session.commit()

    def get(self, decision_id: str) -> Decision | None:
        with Session(self.engine) as session:
            return session.get(Decision, decision_id)

    def update(self, decision_id: str, **fields: Any) -> Decision | None:
        with Session(self.engine) as session:
            row = session.get(Decision, decision_id)
            if row is None:
                return None
            for key, value in fields.items():
                setattr(row, key, value)
            session.add(row)
            session.commit()
            session.refresh(row)
            return row

    def by_tool_calls(self, call_ids: list[str]) -> list[Decision]:
        if not call_ids:
            return []
        with Session(self.engine) as session:
            ids = session.exec(
                select(ToolCall.decision_id).where(ToolCall.id.in_(call_ids))  # type: ignore[attr-defined]
            ).all()
            if not ids:
                return []
            rows = session.exec(select(Decision).where(Decision.id.in_(set(ids))))  # type: ignore[attr-defined]
            return list(rows.all())

    def since(self, start: datetime, task_type: str | None = None) -> list[Decision]:
        with Session(self.engine) as session:
            query = select(Decision).where(Decision.created_at >= start)
            if task_type:
                query = query.where(Decision.task_type == task_type)
            return list(session.exec(query.order_by(col(Decision.created_at))).all())

    def prune(self, before: datetime) -> int:
        with Session(self.engine) as session:
            old = select(Decision.id).where(Decision.created_at < before)
            session.execute(delete(ToolCall).where(col(ToolCall.decision_id).in_(old)))
            result = session.execute(delete(Decision).where(col(Decision.created_at) < before))
            session.commit()
            return int(getattr(result, "rowcount", 0) or 0)  # a DELETE's result is a CursorResult


class DecisionRecorder:
    """Queues decision writes and flushes them in batches from a worker thread.

    The request path only appends to a queue; `flush()` lets a reader see
    everything recorded so far (e.g. GET /decisions/{id} right after a response).
    """

    def __init__(self, store: DecisionStore, interval_s: float = 0.05):
        self.store = store
        self.interval_s = interval_s
        self._pending: list[_Insert | _Update] = []
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None

    def record(self, decision: Decision, tool_call_ids: list[str] | None = None) -> None:
        self._pending.append(_Insert(decision, list(tool_call_ids or [])))

    def update(self, decision_id: str, **fields: Any) -> None:
        self._pending.append(_Update(decision_id, fields))

    async def flush(self) -> None:
        async with self._lock:
            ops, self._pending = self._pending, []
            if not ops:
                return
            try:
                await anyio.to_thread.run_sync(self.store.write, ops)
            except Exception:  # one bad write must not lose the batch: retry each alone
                log.warning("batch of %d decision writes failed; retrying one by one", len(ops))
                for op in ops:
                    try:
                        await anyio.to_thread.run_sync(self.store.write, [op])
                    except Exception:
                        log.exception("could not record %s", op)

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval_s)
            await self.flush()

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="decision-recorder")

    async def stop(self) -> None:
        if self._task:
            async with self._lock:  # not mid-write: a cancelled write thread dies with the process
                self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self.flush()
