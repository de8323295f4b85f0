"""One dedicated thread owns the models; async callers queue jobs, concurrent ones are batched.

Two lanes: the jobs a user waits for (served requests) and background jobs (shadow runs,
learning's fills; `engines.priority`). A batch is made of served jobs only, as many as are queued
(up to `max_batch`); a background job runs alone, when no served job is queued or once it has
waited `background_wait_s`. A background job stops at the next model layer once a served job is
queued (runtime/budget.py) and runs again later; meanwhile its budget is the background's
(`budget.background`: a shadow run cut short is a pair lost). One that has waited
`background_wait_s` while served jobs are queued runs to its end, which its policy's time budget
caps. So a served request waits behind a background job for one layer, or, at most once every
`background_wait_s`, for one budget.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from shadowswitch.engines.local.runtime import budget
from shadowswitch.errors import EngineUnavailable

log = logging.getLogger(__name__)
J = TypeVar("J")
R = TypeVar("R")
BACKGROUND_WAIT_S = 2.0  # a background job waiting this long runs between two served batches


class Worker(Generic[J, R]):
    """Runs `run_batch` on its own thread; everything queued meanwhile forms the next batch."""

    def __init__(
        self,
        run_batch: Callable[[Sequence[J]], list[R]],
        max_batch: int = 8,
        background_wait_s: float = BACKGROUND_WAIT_S,
    ) -> None:
        self.run_batch = run_batch
        self.max_batch = max_batch
        self.background_wait_s = background_wait_s
        self._served: deque[tuple[J, asyncio.Future[R]]] = deque()
        self._background: deque[tuple[J, asyncio.Future[R], float]] = deque()
        self._ready = threading.Condition()
        self._closed = False
        self._last_background = False
        self._thread = threading.Thread(target=self._loop, name="shadowswitch-engine", daemon=True)
        self._thread.start()

    async def submit(self, job: J, background: bool = False) -> R:
        """The job's result; `background`: no user waits for it, it yields to those who do."""
        future: asyncio.Future[R] = asyncio.get_running_loop().create_future()
        with self._ready:
            if self._closed:
                raise EngineUnavailable("the local engine is shutting down")
            if background:
                self._background.append((job, future, time.monotonic()))
            else:
                self._served.append((job, future))
            self._ready.notify()
        return await future

    def close(self) -> None:
        """Stop after the batch in hand; jobs still queued fail with `EngineUnavailable`."""
        with self._ready:
            self._closed = True
            left = [*self._served, *((job, future) for job, future, _ in self._background)]
            self._served.clear()
            self._background.clear()
            self._ready.notify()
        gone = EngineUnavailable("the local engine is shutting down")
        for _, future in left:
            _settle_soon(future, gone)
        self._thread.join(timeout=5)

    def _loop(self) -> None:
        while True:
            with self._ready:
                while not (self._served or self._background or self._closed):
                    self._ready.wait()
                if self._closed:
                    return
                batch, queued = self._next_batch()
            if queued is None:
                self._run(batch)
            else:
                self._run_background(batch[0], queued)

    def _next_batch(self) -> tuple[list[tuple[J, asyncio.Future[R]]], float | None]:
        """Served jobs first; one background job (with when it was queued) when none is queued,
        or when the oldest has waited too long and the batch before was a served one (never two
        in a row ahead of a user, however long the background backlog)."""
        waited = self._background and time.monotonic() - self._background[0][2] > self.background_wait_s
        if self._background and (not self._served or (waited and not self._last_background)):
            job, future, queued = self._background.popleft()
            self._last_background = True
            return [(job, future)], queued
        self._last_background = False
        count = min(len(self._served), self.max_batch)
        return [self._served.popleft() for _ in range(count)], None

    def _run_background(self, item: tuple[J, asyncio.Future[R]], queued: float) -> None:
        """A background job, stopped as soon as a served job is queued and put back at the head
        of its lane (when it was queued kept); one that has waited too long, with served jobs
        queued behind it, runs to its end within its policy's budget."""
        if self._served and time.monotonic() - queued > self.background_wait_s:
            self._run([item])
            return
        try:
            with budget.yielding(lambda: bool(self._served)), budget.background():
                self._run([item], preemptible=True)
        except budget.Preempted:
            with self._ready:
                if not self._closed:
                    self._background.appendleft((*item, queued))
                    return
            _settle_soon(item[1], EngineUnavailable("the local engine is shutting down"))

    def _run(self, batch: list[tuple[J, asyncio.Future[R]]], preemptible: bool = False) -> None:
        try:
            results: list[Any] = self.run_batch([job for job, _ in batch])
        except budget.Preempted:
            if preemptible:
                raise
            results = [EngineUnavailable("the engine job was stopped")] * len(batch)
        except EngineUnavailable as exc:  # a remote model server is away: every job would wait on it
            log.warning("engine batch not run: %s", exc)
            results = [exc] * len(batch)
        except Exception as exc:  # one bad batch must fail its callers, not the thread
            if len(batch) > 1:  # ... and one bad job not the others: try each alone
                for item in batch:
                    self._run([item])
                return
            log.exception("engine job failed")
            results = [exc]
        for (_, future), result in zip(batch, results, strict=True):
            _settle_soon(future, result)


def _settle_soon(future: asyncio.Future[Any], result: Any) -> None:
    future.get_loop().call_soon_threadsafe(_settle, future, result)


def _settle(future: asyncio.Future[Any], result: Any) -> None:
    if future.done():  # the caller gave up (cancelled); nothing to deliver
        return
    if isinstance(result, BaseException):
        future.set_exception(result)
    else:
        future.set_result(result)
