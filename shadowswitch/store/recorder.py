"""The decision writer on the request path: a queue (and its journal on disk) flushed in
batches off the event loop, spooled to disk while the database is away."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from pathlib import Path
from typing import Any, Protocol

import anyio
from prometheus_client import Counter, Gauge

from shadowswitch.store.decisions import DecisionStore
from shadowswitch.store.journal import Journal
from shadowswitch.store.spool import Spool
from shadowswitch.store.tables import Decision
from shadowswitch.store.writes import Insert, Item, Update, encode

log = logging.getLogger(__name__)
DRAIN_BATCH = 500  # spooled writes per database transaction
DRAIN_BUDGET_S = 1.0  # per flush, so that readers waiting on flush() are not held long
RETRY_S = (0.5, 5.0)  # first and longest wait between attempts while the database is away


class SpoolMetrics(Protocol):
    """The spool's instruments (`server.metrics.Metrics` has them)."""

    @property
    def spool_records(self) -> Gauge: ...
    @property
    def spool_bytes(self) -> Gauge: ...
    @property
    def spool_written(self) -> Counter: ...
    @property
    def spool_dropped(self) -> Counter: ...  # by reason: "full", "rejected"


class DecisionRecorder:
    """Queues decision writes and flushes them in batches from a worker thread.

    The request path only appends to a queue; `flush()` lets a reader see everything recorded so
    far (e.g. GET /decisions/{id} right after a response) while the database is there. When a
    write fails, or takes longer than `timeout_s`, the database is away: writes go to the spool
    on disk, and every later write queues behind them (order), until the spool has been written
    to the database, oldest first, once it answers again.
    """

    def __init__(
        self,
        store: DecisionStore,
        interval_s: float = 0.05,
        *,
        spool_dir: Path | None = None,
        spool_max_bytes: int = 256 * 1024 * 1024,
        timeout_s: float = 5.0,
        metrics: SpoolMetrics | None = None,
    ):
        self.store = store
        self.interval_s = interval_s
        self.spool_dir = spool_dir
        self.spool_max_bytes = spool_max_bytes
        self.timeout_s = timeout_s
        self.metrics = metrics
        self.spool: Spool | None = None  # opened by start()
        self._pending: list[Item] = []  # encoded when queued: a record is what the decision was then
        self.journal: Journal | None = None  # the queue on disk, in the spool's slot (journal.py)
        self._lock = asyncio.Lock()
        self._queued = asyncio.Event()  # set by the request path: there is something to write
        self._task: asyncio.Task[None] | None = None
        self._inflight: asyncio.Future[int] | None = None  # a write that outlived its timeout
        self._retry_at = 0.0  # monotonic; no database attempt before this while it is away
        self._wait = RETRY_S[0]
        self._down_since: float | None = None
        self._drained = 0  # spooled writes written since the spool last was empty
        self._dropping = False

    def record(self, decision: Decision, tool_call_ids: list[str] | None = None) -> None:
        self._queue(encode(Insert(decision, list(tool_call_ids or []))))

    def update(self, decision_id: str, **fields: Any) -> None:
        self._queue(encode(Update(decision_id, fields)))

    def _queue(self, item: Item) -> None:
        self._pending.append(item)
        self._queued.set()
        if self.journal is not None:
            try:
                self.journal.write(item)
            except OSError:
                log.exception(
                    "decision journal %s failed: a killed process may lose its last records",
                    self.journal.path,
                )
                self.journal = None

    def status(self) -> dict[str, Any]:
        """For /readyz: where decision records go now, and what waits in the spool."""
        spool = self.spool
        return {
            "records": "spooling" if spool is not None and not spool.empty else "database",
            "spooled": spool.pending_items if spool else 0,
            "spool_bytes": spool.pending_bytes if spool else 0,
            "dropped": spool.dropped if spool else 0,
        }

    async def flush(self) -> None:
        async with self._lock:
            items, self._pending = self._pending, []
            if items:
                sealed = self._seal()
                await self._write(items)
                if sealed is not None:  # in the database or the spool now
                    sealed.unlink(missing_ok=True)
            if self.spool is not None and not self.spool.empty:
                await self._drain()
            self._gauge()

    async def _write(self, items: list[Item]) -> None:
        if self.spool is None:
            try:
                await self._database(items)
            except Exception:
                log.exception("could not record %d decision writes (no spool)", len(items))
            return
        if self._behind():
            await self._to_spool(items)
            return
        try:
            await self._database(items)
        except Exception as exc:
            self._away(exc)
            await self._to_spool(items)
            return
        self._back()

    def _seal(self) -> Path | None:
        try:
            return self.journal.seal() if self.journal is not None else None
        except OSError:
            log.exception("decision journal failed: a killed process may lose its last records")
            self.journal = None
            return None

    def _behind(self) -> bool:
        """Writes queue behind the spool (order), a hung write, or a recent failure."""
        spooled = self.spool is not None and not self.spool.empty
        return spooled or self._busy() or time.monotonic() < self._retry_at

    def _busy(self) -> bool:
        return self._inflight is not None and not self._inflight.done()

    async def _database(self, items: list[Item]) -> None:
        """Write in a worker thread; give up waiting after `timeout_s` (the thread may still finish:
        the items are spooled then, and writing them again later is harmless)."""
        future = asyncio.get_running_loop().run_in_executor(None, self.store.write_items, items)
        future.add_done_callback(_retrieve)
        self._inflight = future
        try:
            rejected = await asyncio.wait_for(asyncio.shield(future), self.timeout_s)
        except TimeoutError:
            raise TimeoutError(f"no answer in {self.timeout_s:g} s") from None
        if rejected and self.metrics:
            self.metrics.spool_dropped.labels("rejected").inc(rejected)

    async def _to_spool(self, items: list[Item]) -> None:
        assert self.spool is not None
        dropped = await anyio.to_thread.run_sync(self.spool.append, items)
        if dropped and self.metrics:
            self.metrics.spool_dropped.labels("full").inc(dropped)
        if dropped and not self._dropping:
            self._dropping = True
            log.error(
                "decision spool %s is full (%d bytes, bound %d) or its disk failed: DROPPING the newest "
                "decision records until the database takes some (shadowswitch_spool_dropped counts them)",
                self.spool.root,
                self.spool.pending_bytes,
                self.spool.max_bytes,
            )
        elif self._dropping and not dropped and not self.spool.full:
            self._dropping = False
            log.warning("decision spool has room again; %d records were dropped in all", self.spool.dropped)

    async def _drain(self) -> None:
        """Write spooled items to the database, oldest first, for at most DRAIN_BUDGET_S."""
        assert self.spool is not None
        if self._busy() or time.monotonic() < self._retry_at:
            return
        deadline = time.monotonic() + DRAIN_BUDGET_S
        while not self.spool.empty and time.monotonic() < deadline:
            items, mark = await anyio.to_thread.run_sync(self.spool.read, DRAIN_BATCH)
            if mark is None:
                break
            try:
                await self._database(items)
            except Exception as exc:
                self._away(exc)
                return
            await anyio.to_thread.run_sync(self.spool.consume, mark)
            self._drained += len(items)
            if self.metrics:
                self.metrics.spool_written.inc(len(items))
        if self.spool.empty:
            self._back()

    def _away(self, exc: BaseException) -> None:
        now = time.monotonic()
        if self._down_since is None:
            self._down_since, self._wait = now, RETRY_S[0]
            where = f"spooling them to {self.spool.root}" if self.spool else "they are LOST (no spool)"
            log.warning(
                "database unavailable for decision records (%s); %s until it is back", _brief(exc), where
            )
        else:
            self._wait = min(self._wait * 2, RETRY_S[1])
        self._retry_at = now + self._wait

    def _back(self) -> None:
        if self._down_since is not None or self._drained:
            away = (
                f", {time.monotonic() - self._down_since:.1f} s after it went away"
                if self._down_since
                else ""
            )
            log.warning("database is back: wrote %d spooled decision writes%s", self._drained, away)
        self._down_since, self._drained, self._retry_at = None, 0, 0.0

    def _gauge(self) -> None:
        if self.metrics and self.spool is not None:
            self.metrics.spool_records.set(self.spool.pending_items)
            self.metrics.spool_bytes.set(self.spool.pending_bytes)

    async def _run(self) -> None:
        while True:
            if self.spool is None or self.spool.empty:
                # Nothing to retry: sleep until a record is queued. A timer every interval on a
                # quiet server woke the loop (and competed with a lone request) for nothing.
                await self._queued.wait()
            await asyncio.sleep(self.interval_s)
            self._queued.clear()  # what is queued from here on is this flush's or sets it again
            try:
                await self.flush()
            except Exception:  # the loop must outlive anything one flush meets
                log.exception("decision recorder: flush failed")

    def start(self) -> None:
        if self.spool_dir is not None and self.spool is None:
            try:
                self.spool = Spool(self.spool_dir, self.spool_max_bytes)
                self.journal = self.spool.journal()
            except (OSError, RuntimeError):
                log.exception(
                    "no decision spool at %s: records are lost while the database is away", self.spool_dir
                )
        self._queued = asyncio.Event()  # of this loop (an Event waited on is bound to one)
        if self._pending:
            self._queued.set()
        self._task = asyncio.create_task(self._run(), name="decision-recorder")

    async def stop(self) -> None:
        if self._task:
            async with self._lock:  # not mid-write: a cancelled write thread dies with the process
                self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self.flush()
        if self.journal is not None:
            self.journal.close()
            self.journal = None
        if self.spool is not None:
            if not self.spool.empty:
                log.warning(
                    "%d decision writes stay in the spool %s; the next start writes them to the database",
                    self.spool.pending_items,
                    self.spool.root,
                )
            await anyio.to_thread.run_sync(self.spool.close)
            self.spool = None


def _retrieve(future: asyncio.Future[int]) -> None:
    """A write given up on may still fail later: take its exception so asyncio does not warn."""
    if not future.cancelled():
        future.exception()


def _brief(exc: BaseException) -> str:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {first[:200]}"
