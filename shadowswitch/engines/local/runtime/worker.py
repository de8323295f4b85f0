"""One dedicated thread owns the models; async callers queue jobs, concurrent ones are batched.

Two lanes: the jobs a user waits for (served requests) and background jobs (shadow runs,
learning's fills; `engines.priority`). A batch is made of served jobs only, as many as are queued
(up to `max_batch`); a background job runs alone, when no served job is queued or once it has
waited `background_wait_s`. So a served request waits behind at most one background job, and
that job's engine time is capped by its policy's time budget (runtime/budget.py).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

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
            future.get_loop().call_soon_threadsafe(_settle, future, gone)
        self._thread.join(timeout=5)

    def _loop(self) -> None:
        while True:
            with self._ready:
                while not (self._served or self._background or self._closed):
                    self._ready.wait()
                if self._closed:
                    return
                batch = self._next_batch()
            self._run(batch)

    def _next_batch(self) -> list[tuple[J, asyncio.Future[R]]]:
        """Served jobs first; one background job when none is queued or it has waited too long."""
        waited = self._background and time.monotonic() - self._background[0][2] > self.background_wait_s
        if self._background and (waited or not self._served):
            job, future, _ = self._background.popleft()
            return [(job, future)]
        count = min(len(self._served), self.max_batch)
        return [self._served.popleft() for _ in range(count)]

    def _run(self, batch: list[tuple[J, asyncio.Future[R]]]) -> None:
        try:
            results: list[Any] = self.run_batch([job for job, _ in batch])
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
            future.get_loop().call_soon_threadsafe(_settle, future, result)


def _settle(future: asyncio.Future[Any], result: Any) -> None:
    if future.done():  # the caller gave up (cancelled); nothing to deliver
        return
    if isinstance(result, BaseException):
        future.set_exception(result)
    else:
        future.set_result(result)
