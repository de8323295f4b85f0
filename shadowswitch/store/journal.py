"""Decision writes on disk from the moment they are queued until the database or the spool has
them, so that a process killed in between (SIGKILL, the OOM killer) loses no answered request's
record: the next process to claim its spool slot writes them (writes are idempotent).

One append-only file per flush interval in the process's spool slot (`journal-<ns>.wal`, JSON
lines): a line is written with one write(2) when the request's record is queued, before its
reply leaves; `seal` starts the next file when a flush takes the queue, and the sealed file is
deleted once that flush has written it. The page cache keeps a line when the process dies, not when the
machine does: the spool, not the journal, is fsynced. Synchronous and small: a few microseconds
per line on the event loop, the same JSON encoding the flush used to do, and the write(2) made
with the GIL held (`_append`).
"""

from __future__ import annotations

import ctypes
import json
import logging
import os
import time
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)
PATTERN = "journal-*.wal"  # not *.jsonl: those are the spool's segments
Item = dict[str, Any]


class Journal:
    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.path, self._fd = self._open()

    def _open(self) -> tuple[Path, int]:
        path = self.dir / f"journal-{time.time_ns():020d}.wal"
        return path, os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)

    def write(self, item: Item) -> None:
        _append(self._fd, encode_line(item))

    def seal(self) -> Path:
        """Start a new file; the returned one may be deleted once its writes are safe elsewhere."""
        sealed, fd = self.path, self._fd
        self.path, self._fd = self._open()
        os.close(fd)
        return sealed

    def close(self) -> None:
        """The end of a clean stop: everything queued was flushed, so the open file goes too."""
        os.close(self._fd)
        self.path.unlink(missing_ok=True)


def encode_line(item: Item) -> bytes:
    return _ENCODER.encode(item).encode() + b"\n"


# json.dumps(item, default=str, separators=(",", ":")), without building an encoder per line
_ENCODER = json.JSONEncoder(default=str, separators=(",", ":"))


def _append(fd: int, line: bytes) -> None:
    """`os.write(fd, line)` without releasing the GIL: a line is a copy of a kilobyte into the page
    cache, while a release on the event loop at concurrency 32 hands the GIL to a thread that
    wants it (LiteLLM's executor runs its set-up of every call) and the loop waits up to a switch
    interval to have it back: measured, more CPU per request and twice the context switches."""
    if _write(fd, line, len(line)) < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))


_write = ctypes.PyDLL(None, use_errno=True).write  # PyDLL: called with the GIL held
_write.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t)
_write.restype = ctypes.c_ssize_t


def left_behind(directory: Path) -> list[Path]:
    """The journal files a process that held this slot left (oldest first)."""
    return sorted(directory.glob(PATTERN))


def read(path: Path) -> list[Item]:
    """The whole lines of a journal file; a last line cut short by the kill is skipped."""
    items = []
    for line in path.read_bytes().splitlines():
        try:
            items.append(json.loads(line))
        except ValueError:
            log.warning("journal %s: skipped a torn line", path)
    return items
