"""A bounded on-disk queue of decision writes, kept while the database is away.

Layout: `<root>/slot-N/` holds append-only JSONL segment files (`<time_ns>.jsonl`, one write per
line) and a `cursor` file (segment name and byte offset of the first line not yet written to the
database). Each process holds an exclusive lock on one slot, so several workers or replicas on
one machine never share a file; a slot whose process died is adopted (and drained first) by the
next process that finds it unlocked.

When full (`max_bytes` of lines not yet written), new lines are dropped and counted: what is
already on disk stays, in order, so every spooled update still follows its insert.
Synchronous: call from a worker thread.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from sqlalchemy.engine import make_url

from shadowswitch.store import journal

log = logging.getLogger(__name__)
MAX_SLOTS = 64
SEGMENT_BYTES = 4 * 1024 * 1024
Item = dict[str, Any]


@dataclass(frozen=True)
class Mark:
    """Where reading stopped: consume it once those lines are safely in the database."""

    slot: int  # index in Spool.slots
    segment: str
    offset: int
    lines: int  # read up to here, torn ones included


class Slot:
    """One directory of segments and its cursor, locked by this process."""

    def __init__(self, directory: Path, lock: IO[bytes]):
        self.dir = directory
        self.lock = lock
        self.segments = sorted(p.name for p in directory.glob("*.jsonl"))
        self.cursor = self._read_cursor()
        self.pending_bytes = self._count_bytes()
        self.pending_items = sum(1 for _ in self._lines_from(*self.cursor))
        self.writing: IO[bytes] | None = None  # the segment this process appends to

    @property
    def empty(self) -> bool:
        return self.pending_bytes <= 0

    def _count_bytes(self) -> int:
        return sum((self.dir / s).stat().st_size for s in self.segments) - self.cursor[1]

    def _read_cursor(self) -> tuple[str, int]:
        first = self.segments[0] if self.segments else ""
        try:
            name, offset = (self.dir / "cursor").read_text().split()
        except (OSError, ValueError):
            return first, 0
        return (name, int(offset)) if name in self.segments else (first, 0)

    def write_cursor(self, segment: str, offset: int) -> None:
        tmp = self.dir / "cursor.tmp"
        tmp.write_text(f"{segment} {offset}\n")
        os.replace(tmp, self.dir / "cursor")
        self.cursor = (segment, offset)

    def _lines_from(self, segment: str, offset: int) -> Iterator[tuple[str, int, bytes]]:
        """(segment, offset after the line, line) from the cursor on, oldest first."""
        for name in self.segments[self.segments.index(segment) :] if segment else []:
            with (self.dir / name).open("rb") as f:
                f.seek(offset if name == segment else 0)
                for line in f:
                    yield name, f.tell(), line

    def read(self, limit: int) -> tuple[list[Item], tuple[str, int, int] | None, int]:
        """Up to `limit` items from the cursor; (segment, offset, lines) after them; torn lines."""
        items: list[Item] = []
        end: tuple[str, int, int] | None = None
        torn = 0
        for name, after, line in self._lines_from(*self.cursor):
            try:
                items.append(json.loads(line))
            except ValueError:  # a write cut short by a crash or a full disk: nothing to recover
                torn += 1
            end = (name, after, len(items) + torn)
            if len(items) >= limit:
                break
        return items, end, torn

    def consume(self, segment: str, offset: int, lines: int) -> None:
        """Forget everything before (segment, offset): written to the database."""
        done = self.segments[: self.segments.index(segment)]
        freed = sum((self.dir / s).stat().st_size for s in done) - self.cursor[1] + offset
        for name in done:
            (self.dir / name).unlink()
        self.segments = self.segments[len(done) :]
        size = (self.dir / segment).stat().st_size
        self.pending_bytes -= freed
        self.pending_items -= lines
        if offset >= size and (self.writing is None or Path(self.writing.name).name != segment):
            (self.dir / segment).unlink()  # finished and no longer appended to
            self.segments.remove(segment)
            segment, offset = (self.segments[0], 0) if self.segments else ("", 0)
        self.write_cursor(segment, offset)

    def append(self, lines: list[bytes]) -> None:
        if self.writing is None or self.writing.tell() >= SEGMENT_BYTES:
            self._roll()
        assert self.writing is not None
        self.writing.write(b"".join(lines))
        self.writing.flush()
        os.fsync(self.writing.fileno())
        self.pending_bytes += sum(len(line) for line in lines)
        self.pending_items += len(lines)

    def abandon_segment(self) -> None:
        """A write failed half-way: the next append starts a new segment (the reader skips the torn line)."""
        if self.writing is not None:
            with contextlib.suppress(OSError):
                self.writing.close()
            self.writing = None
        with contextlib.suppress(OSError):
            self.pending_bytes = self._count_bytes()  # the torn part is on disk too

    def _roll(self) -> None:
        """Start a new segment (never append to a file another run may have left torn)."""
        if self.writing is not None:
            self.writing.close()
        name = f"{time.time_ns():020d}.jsonl"
        self.writing = (self.dir / name).open("ab")
        self.segments.append(name)
        if not self.cursor[0]:
            self.write_cursor(name, 0)

    def close(self) -> None:
        if self.writing is not None:
            self.writing.close()
            self.writing = None
        if self.empty:  # nothing left: leave a clean directory
            for name in self.segments:
                (self.dir / name).unlink(missing_ok=True)
            (self.dir / "cursor").unlink(missing_ok=True)
        self.lock.close()


class Spool:
    """This process's slot, plus slots of dead processes it adopted (drained first, oldest)."""

    def __init__(self, root: Path, max_bytes: int):
        self.root = root
        self.max_bytes = max_bytes
        root.mkdir(parents=True, exist_ok=True)
        own = _claim(root)
        # slots a dead process left records in (its lock went with it): drain them too
        others = (_try_lock(d, create=False) for d in sorted(root.glob("slot-*")) if d != own.dir)
        adopted = [s for s in others if s is not None]
        self.slots = [own]
        self.dropped = 0  # lines refused, in all
        self.full = False  # refusing new lines until the database takes some
        recovered = self._recover([*adopted, own])
        for slot in adopted:
            if slot.empty:
                slot.close()
        self.slots = [s for s in adopted if not s.empty] + [own]
        if recovered:
            log.warning(
                "spool %s: %d decision writes a killed process had queued are spooled", root, recovered
            )
        if not self.empty:
            log.warning(
                "spool %s holds %d decision writes (%d bytes) from an earlier run; "
                "they go to the database first",
                root,
                self.pending_items,
                self.pending_bytes,
            )

    @property
    def own(self) -> Slot:
        return self.slots[-1]

    def journal(self) -> journal.Journal:
        """This process's journal of queued writes, in its own slot."""
        return journal.Journal(self.own.dir)

    def _recover(self, slots: list[Slot]) -> int:
        """Spool the writes in journals that dead processes left in `slots` (journal.py)."""
        count = 0
        for slot in slots:
            for path in journal.left_behind(slot.dir):
                items = journal.read(path)
                if self.append(items) == 0:  # written again later if it could not be spooled
                    path.unlink()
                count += len(items)
        return count

    @property
    def empty(self) -> bool:
        return all(s.empty for s in self.slots)

    @property
    def pending_bytes(self) -> int:
        return sum(s.pending_bytes for s in self.slots)

    @property
    def pending_items(self) -> int:
        return sum(s.pending_items for s in self.slots)

    def append(self, items: list[Item]) -> int:
        """Spool `items` in order; return how many were dropped (the spool is full, or the disk).

        Full drops the newest: what is on disk stays, in order. Room comes back when the
        database has taken a tenth of the bound, so drops come in whole episodes.
        """
        if self.full and self.pending_bytes <= self.max_bytes * 0.9:
            self.full = False
        lines = [journal.encode_line(item) for item in items]
        room = 0 if self.full else self.max_bytes - self.pending_bytes
        kept: list[bytes] = []
        for line in lines:
            if len(line) > room:
                self.full = True
                break
            kept.append(line)
            room -= len(line)
        try:
            if kept:
                self.own.append(kept)
        except OSError:
            log.exception("could not write to the spool %s", self.own.dir)
            self.own.abandon_segment()
            kept = []
        dropped = len(lines) - len(kept)
        self.dropped += dropped
        return dropped

    def read(self, limit: int = 500) -> tuple[list[Item], Mark | None]:
        """The oldest items not yet written (from one slot); None when there are none."""
        for index, slot in enumerate(self.slots):
            if slot.empty:
                continue
            items, end, torn = slot.read(limit)
            if torn:
                log.error("spool %s: skipped %d torn line(s)", slot.dir, torn)
            if end is not None:
                return items, Mark(index, *end)
        return [], None

    def consume(self, mark: Mark) -> None:
        self.slots[mark.slot].consume(mark.segment, mark.offset, mark.lines)

    def close(self) -> None:
        for slot in self.slots:
            slot.close()


def default_dir(db_url: str) -> Path:
    """Beside a SQLite file; else per database under $XDG_STATE_HOME (never shared by two databases)."""
    url = make_url(db_url)
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        return Path(f"{url.database}.spool")
    state = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    key = hashlib.sha256(url.render_as_string(hide_password=True).encode()).hexdigest()[:16]
    return state / "shadowswitch" / "spool" / key


def _claim(root: Path) -> Slot:
    """The first slot no other process holds: this process appends only there."""
    for n in range(MAX_SLOTS):
        slot = _try_lock(root / f"slot-{n}", create=True)
        if slot is not None:
            return slot
    raise RuntimeError(f"all {MAX_SLOTS} spool slots under {root} are locked by other processes")


def _try_lock(directory: Path, create: bool) -> Slot | None:
    """The slot in `directory`, if no other process holds it."""
    if create:
        directory.mkdir(exist_ok=True)
    elif not directory.is_dir():
        return None
    lock = (directory / "lock").open("ab")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.close()
        return None
    return Slot(directory, lock)
