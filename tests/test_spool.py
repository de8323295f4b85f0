"""The on-disk spool: order, bound, restarts, torn lines and one slot per process (real files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from shadowswitch.store import spool as spool_module
from shadowswitch.store.spool import Spool, default_dir


def items(start: int, n: int) -> list[dict[str, object]]:
    return [{"insert": {"id": f"d{i:05d}", "note": "x" * 40}} for i in range(start, start + n)]


def drain(spool: Spool, limit: int = 7) -> list[str]:
    """Read and consume everything, `limit` at a time, as the recorder does."""
    seen: list[str] = []
    while True:
        batch, mark = spool.read(limit)
        if mark is None:
            return seen
        seen += [str(item["insert"]["id"]) for item in batch]  # type: ignore[index]
        spool.consume(mark)


def test_items_come_back_in_order_across_segments(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spool_module, "SEGMENT_BYTES", 300)  # a few lines per segment
    spool = Spool(tmp_path, max_bytes=1_000_000)
    for start in range(0, 40, 8):
        assert spool.append(items(start, 8)) == 0
    assert spool.pending_items == 40 and len(spool.own.segments) == 5  # one per append here
    assert drain(spool) == [f"d{i:05d}" for i in range(40)]
    assert spool.empty and spool.pending_bytes == 0 and spool.pending_items == 0
    assert len(list((tmp_path / "slot-0").glob("*.jsonl"))) <= 1  # written segments are deleted
    spool.append(items(40, 3))  # still usable after draining
    assert drain(spool) == ["d00040", "d00041", "d00042"]


def test_a_restart_finds_what_was_not_written_yet(tmp_path: Path) -> None:
    first = Spool(tmp_path, max_bytes=1_000_000)
    first.append(items(0, 10))
    _, mark = first.read(4)
    assert mark is not None
    first.consume(mark)
    first.close()  # the process stops with 6 writes still spooled
    second = Spool(tmp_path, max_bytes=1_000_000)
    assert second.pending_items == 6
    assert drain(second) == [f"d{i:05d}" for i in range(4, 10)]
    second.close()
    assert not list((tmp_path / "slot-0").glob("*.jsonl"))  # empty: a clean directory


def test_when_full_the_newest_are_dropped_until_a_tenth_is_written(tmp_path: Path) -> None:
    line = len(b'{"insert":{"id":"d00000","note":"' + b"x" * 40 + b'"}}\n')
    spool = Spool(tmp_path, max_bytes=line * 20)
    assert spool.append(items(0, 18)) == 0
    assert spool.append(items(18, 5)) == 3  # 2 fit; the 3 newest are dropped
    assert spool.full and spool.dropped == 3
    assert drain_some(spool, 1) == ["d00000"]
    assert spool.append(items(23, 1)) == 1  # room for one, but still full: drops come in episodes
    assert drain_some(spool, 2) == ["d00001", "d00002"]
    assert spool.append(items(24, 2)) == 0 and not spool.full  # 17 of 20 were left
    assert spool.dropped == 4
    assert drain(spool) == [f"d{i:05d}" for i in range(3, 20)] + ["d00024", "d00025"]


def drain_some(spool: Spool, n: int) -> list[str]:
    batch, mark = spool.read(n)
    assert mark is not None
    spool.consume(mark)
    return [str(item["insert"]["id"]) for item in batch]  # type: ignore[index]


def test_a_torn_line_is_skipped_and_the_rest_kept(tmp_path: Path) -> None:
    spool = Spool(tmp_path, max_bytes=1_000_000)
    spool.append(items(0, 2))
    spool.own.abandon_segment()
    segment = tmp_path / "slot-0" / spool.own.segments[-1]
    with segment.open("ab") as f:
        f.write(b'{"insert":{"id":"torn"')  # a crash in the middle of a write
    spool.own.abandon_segment()  # recount, as after a failed write
    spool.append(items(2, 2))
    assert drain(spool) == ["d00000", "d00001", "d00002", "d00003"]


def test_each_process_gets_its_own_slot_and_adopts_a_dead_ones(tmp_path: Path) -> None:
    a = Spool(tmp_path, max_bytes=1_000_000)
    b = Spool(tmp_path, max_bytes=1_000_000)  # another worker: another lock, another directory
    assert a.own.dir != b.own.dir
    a.append(items(0, 2))
    b.append(items(100, 2))
    b.close()  # b's process dies with two writes spooled
    a.close()
    c = Spool(tmp_path, max_bytes=1_000_000)  # the next start takes slot 0 and adopts slot 1
    assert c.own.dir == tmp_path / "slot-0"
    assert sorted(drain(c)) == ["d00000", "d00001", "d00100", "d00101"]


def test_the_default_directory_is_beside_sqlite_and_per_database_otherwise(tmp_path: Path) -> None:
    assert default_dir(f"sqlite:///{tmp_path}/a.db") == Path(f"{tmp_path}/a.db.spool")
    one = default_dir("postgresql+psycopg://u:secret@h/one")
    assert one != default_dir("postgresql+psycopg://u:secret@h/two")
    assert "secret" not in str(one)


def test_a_killed_process_journal_is_spooled_by_the_next_start_sealed_parts_are_not(
    tmp_path: Path,
) -> None:
    a = Spool(tmp_path, max_bytes=1_000_000)
    b = Spool(tmp_path, max_bytes=1_000_000)  # a live neighbour: its journal is not touched
    journal = a.journal()
    for item in items(0, 2):
        journal.write(item)
    journal.seal().unlink()  # a flush wrote those two to the database
    for item in items(2, 3):
        journal.write(item)  # queued and answered, then the process is SIGKILLed: no flush
    b.journal().write(items(100, 1)[0])
    a.own.lock.close()  # what the kill releases; the journal stays on disk
    c = Spool(tmp_path, max_bytes=1_000_000)  # the restart, in a's slot
    assert c.own.dir == a.own.dir
    assert drain(c) == ["d00002", "d00003", "d00004"]
    assert not list(c.own.dir.glob("journal-*"))  # spooled, so gone
    assert len(list(b.own.dir.glob("journal-*"))) == 1
