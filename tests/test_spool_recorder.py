"""The decision recorder against a real SQLite database that goes away and comes back.

The outage is real: the `decision` table is renamed away (every write fails with the driver's
own error) or the database is locked by another connection (a slow database), then restored.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from shadowswitch.server.metrics import Metrics
from shadowswitch.store import db
from shadowswitch.store.decisions import DecisionStore
from shadowswitch.store.recorder import DecisionRecorder
from shadowswitch.store.tables import Decision
from shadowswitch.store.writes import Insert, Update, encode
from tests.support.wait import eventually_async


def new_decision(i: int, task_type: str | None = "t") -> Decision:
    return Decision(id=f"d{i:04d}", task_type=task_type, path="generative", route="generative", mode="off")


@pytest.fixture
def sqlite_file(tmp_path: Path) -> Path:
    path = tmp_path / "records.db"
    db.upgrade(f"sqlite:///{path}")
    return path


def recorder_for(path: Path, tmp_path: Path, **options: Any) -> DecisionRecorder:
    store = DecisionStore(db.make_engine(f"sqlite:///{path}"))
    return DecisionRecorder(
        store, interval_s=0.02, spool_dir=tmp_path / "spool", metrics=Metrics(), **options
    )


def rows(path: Path, table: str = "decision", column: str = "model") -> list[tuple[str, Any]]:
    """(id, column) in the order the rows were inserted (rowid)."""
    with sqlite3.connect(path) as conn:
        return list(conn.execute(f"SELECT id, {column} FROM {table} ORDER BY rowid"))


def rename(path: Path, old: str, new: str) -> None:
    with sqlite3.connect(path, timeout=30) as conn:
        conn.execute(f"ALTER TABLE {old} RENAME TO {new}")


def metric(recorder: DecisionRecorder, name: str, **labels: str) -> float:
    assert recorder.metrics is not None
    return recorder.metrics.registry.get_sample_value(name, labels) or 0.0


async def test_an_outage_spools_writes_and_the_database_gets_each_once_in_order(
    sqlite_file: Path, tmp_path: Path
) -> None:
    recorder = recorder_for(sqlite_file, tmp_path)
    recorder.start()
    for i in range(5):
        recorder.record(new_decision(i))
    await recorder.flush()
    assert len(rows(sqlite_file)) == 5

    rename(sqlite_file, "decision", "decision_away")  # the database loses the table: writes fail
    for i in range(5, 25):
        recorder.record(new_decision(i))
        recorder.update(f"d{i:04d}", model=f"updated {i}")  # must land after its own insert
    recorder.update("d0001", model="updated while away")  # a decision written before the outage
    await recorder.flush()
    assert recorder.status()["records"] == "spooling" and recorder.status()["spooled"] == 41
    assert metric(recorder, "shadowswitch_spool_records") == 41

    rename(sqlite_file, "decision_away", "decision")  # back
    await eventually_async(lambda: recorder.status()["records"] == "database", timeout_s=20)
    written = rows(sqlite_file)
    assert [r[0] for r in written] == [f"d{i:04d}" for i in range(25)]  # once each, in order
    assert [r[1] for r in written[5:]] == [f"updated {i}" for i in range(5, 25)]
    assert written[1][1] == "updated while away"
    assert metric(recorder, "shadowswitch_spool_written_total") == 41
    await recorder.stop()


async def test_records_spooled_at_shutdown_are_written_by_the_next_start(
    sqlite_file: Path, tmp_path: Path
) -> None:
    first = recorder_for(sqlite_file, tmp_path)
    first.start()
    rename(sqlite_file, "decision", "decision_away")
    for i in range(10):
        first.record(new_decision(i))
    await first.stop()  # the process exits while the database is away
    rename(sqlite_file, "decision_away", "decision")
    assert rows(sqlite_file) == []
    second = recorder_for(sqlite_file, tmp_path)
    second.start()
    await eventually_async(lambda: len(rows(sqlite_file)) == 10, timeout_s=20)
    await second.stop()
    assert [r[0] for r in rows(sqlite_file)] == [f"d{i:04d}" for i in range(10)]


async def test_a_slow_database_is_not_waited_for_beyond_the_timeout(
    sqlite_file: Path, tmp_path: Path
) -> None:
    recorder = recorder_for(sqlite_file, tmp_path, timeout_s=0.3)
    recorder.start()
    locker = sqlite3.connect(sqlite_file, timeout=30, isolation_level=None)
    locker.execute("BEGIN EXCLUSIVE")  # another process holds the write lock
    for i in range(10):
        recorder.record(new_decision(i))
    await recorder.flush()  # gives up after 0.3 s (the busy timeout would wait 30 s)
    assert recorder.status()["records"] == "spooling"
    locker.execute("ROLLBACK")
    locker.close()
    await eventually_async(lambda: recorder.status()["records"] == "database", timeout_s=20)
    await recorder.stop()
    # the write given up on finished after the lock went, and the spool wrote it again: one row each
    assert [r[0] for r in rows(sqlite_file)] == [f"d{i:04d}" for i in range(10)]


def test_a_batch_written_twice_leaves_one_row_each(sqlite_file: Path) -> None:
    store = DecisionStore(db.make_engine(f"sqlite:///{sqlite_file}"))
    items = [encode(Insert(new_decision(i), [f"call_{i}"])) for i in range(3)]
    items.append(encode(Update("d0001", {"model": "m"})))
    store.write_items(items)
    store.write_items(items)  # e.g. the commit went through but its acknowledgement was lost
    assert rows(sqlite_file) == [("d0000", None), ("d0001", "m"), ("d0002", None)]
    calls = rows(sqlite_file, "tool_call", "decision_id")
    assert calls == [("call_0", "d0000"), ("call_1", "d0001"), ("call_2", "d0002")]


async def test_a_record_the_database_refuses_is_dropped_alone(sqlite_file: Path, tmp_path: Path) -> None:
    recorder = recorder_for(sqlite_file, tmp_path)
    recorder.record(new_decision(0))
    recorder.record(new_decision(1, task_type=None))  # NOT NULL: no retry can fix it
    recorder.record(new_decision(2))
    recorder.start()
    await recorder.flush()
    assert [r[0] for r in rows(sqlite_file)] == ["d0000", "d0002"]
    assert recorder.status()["records"] == "database"
    assert metric(recorder, "shadowswitch_spool_dropped_total", reason="rejected") == 1
    await recorder.stop()
