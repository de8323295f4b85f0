"""Decision records: the queries that write and read them back (`DecisionStore`); the batching
writer on the request path is `shadowswitch.store.recorder.DecisionRecorder`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, delete
from sqlmodel import Session, col, select

from shadowswitch.store.tables import Decision, ToolCall
from shadowswitch.store.writes import Insert, Item, Update, encode, write_items

_Insert, _Update = Insert, Update  # the names tests and older callers use


class DecisionStore:
    """Synchronous queries; call them from a worker thread (`anyio.to_thread.run_sync`)."""

    def __init__(self, engine: Engine):
        self.engine = engine

    def write(self, ops: Sequence[Insert | Update]) -> int:
        """Write in order, idempotently; returns how many records the database refused."""
        return write_items(self.engine, [encode(op) for op in ops])

    def write_items(self, items: Sequence[Item]) -> int:
        return write_items(self.engine, items)

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
