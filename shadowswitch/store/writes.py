"""Decision writes as plain data, written idempotently and in order.

A write is a JSON-able dict — `{"insert": row, "calls": [...]}` or `{"update": id, "fields":
{...}}` — so the same thing goes to the database at once or, while it is away, to the spool
and later to the database. An insert whose decision id is already there is skipped (a batch
may be written twice: once before a lost commit acknowledgement, once from the spool), and
writes keep their order, so an update always follows its insert.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, DateTime, Engine, Table, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DataError, DBAPIError, IntegrityError, StatementError

from shadowswitch.store.tables import Decision, ToolCall, utcnow

log = logging.getLogger(__name__)
Item = dict[str, Any]
DECISIONS: Table = Decision.__table__  # type: ignore[attr-defined]
TOOL_CALLS: Table = ToolCall.__table__  # type: ignore[attr-defined]
COLUMNS = tuple(c.name for c in DECISIONS.columns)


@dataclass
class Insert:
    decision: Decision
    tool_call_ids: list[str] = field(default_factory=list)


@dataclass
class Update:
    decision_id: str
    fields: dict[str, Any]


def encode(op: Insert | Update) -> Item:
    """The write as plain data, read off the decision now (later changes go through updates)."""
    if isinstance(op, Update):
        return {"update": op.decision_id, "fields": dict(op.fields)}
    values = op.decision.__dict__  # what is set is there; what is not (expired) is read as usual
    row = {name: values[name] if name in values else getattr(op.decision, name) for name in COLUMNS}
    return {"insert": row, "calls": list(op.tool_call_ids), "at": utcnow()}


def rejects_record(exc: BaseException) -> bool:
    """The database is there but refuses this record (a constraint, a value it cannot hold).

    Anything else — a refused connection, a lock, a timeout, a missing table — means the
    database is away, and the write is kept to be tried again.
    """
    if isinstance(exc, IntegrityError | DataError):
        return True
    if isinstance(exc, DBAPIError):
        return False
    return isinstance(exc, StatementError | TypeError | ValueError)  # a value the driver cannot bind


def write_items(engine: Engine, items: Sequence[Item]) -> int:
    """Write in order; a record the database refuses is logged and dropped. Returns how many.

    Raises when the database is away: then nothing is lost, the caller keeps the items.
    """
    try:
        _write(engine, items)
        return 0
    except Exception as exc:
        if not rejects_record(exc):
            raise
    rejected = 0
    for item in items:  # find the bad one(s); the others are written (again: idempotent)
        try:
            _write(engine, [item])
        except Exception as exc:
            if not rejects_record(exc):
                raise
            log.error("the database refused decision write %s; dropped: %s", _name(item), exc)
            rejected += 1
    return rejected


def _write(engine: Engine, items: Sequence[Item]) -> None:
    with engine.begin() as connection:
        inserts: list[Item] = []
        for item in items:
            if "insert" in item:
                inserts.append(item)
                continue
            _insert(connection, inserts)
            inserts = []
            fields = _revive(DECISIONS, item["fields"])
            connection.execute(update(DECISIONS).where(DECISIONS.c.id == item["update"]).values(**fields))
        _insert(connection, inserts)


def _insert(connection: Connection, inserts: list[Item]) -> None:
    """Insert decisions and their tool call ids; ids already there are left as they are."""
    if not inserts:
        return
    rows = [_revive(DECISIONS, item["insert"]) for item in inserts]
    calls = [
        _revive(TOOL_CALLS, {"id": call, "decision_id": item["insert"]["id"], "created_at": item["at"]})
        for item in inserts
        for call in item.get("calls") or []
    ]
    connection.execute(_insert_ignoring(connection, DECISIONS), rows)
    if calls:
        connection.execute(_insert_ignoring(connection, TOOL_CALLS), calls)


def _insert_ignoring(connection: Connection, table: Table) -> Any:
    dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
    return dialect.insert(table).on_conflict_do_nothing(index_elements=["id"])


def _revive(table: Table, values: dict[str, Any]) -> dict[str, Any]:
    """Timestamps come back from the spool's JSON as text; a write queued in memory has them as
    they were, and is written as it is."""
    text = {key: value for key in _time_columns(table) if isinstance(value := values.get(key), str)}
    if not text:
        return values
    return values | {key: datetime.fromisoformat(value) for key, value in text.items()}


@functools.cache
def _time_columns(table: Table) -> frozenset[str]:
    """Looked up once per table: per row and column it was half the cost of a batch write."""
    return frozenset(c.name for c in table.columns if isinstance(c.type, DateTime))


def _name(item: Item) -> str:
    return f"insert {item['insert'].get('id')}" if "insert" in item else f"update {item.get('update')}"
