"""One dedicated thread owns the models; async callers queue jobs, concurrent ones are batched."""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from shadowswitch.errors import EngineUnavailable

log = logging.getLogger(__name__)
J = TypeVar("J")
R = TypeVar("R")


class Worker(Generic[J, R]):
    """Runs `run_batch` on its own thread; everything queued meanwhile forms the next batch."""

    def __init__(self, run_batch: Callable[[Sequence[J]], list[R]], max_batch: int = 8) -> None:
        self.run_batch = run_batch
        self.max_batch = max_batch
        self._queue: queue.Queue[tuple[J, asyncio.Future[R]] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._loop, name="shadowswitch-engine", daemon=True)
        self._thread.start()

    async def submit(self, job: J) -> R:
        future: asyncio.Future[R] = asyncio.get_running_loop().create_future()
        self._queue.put((job, future))
        return await future

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=5)

    def _loop(self) -> None:
        while True:
            first = self._queue.get()
            if first is None:
                return
            batch = [first]
            while len(batch) < self.max_batch:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    self._queue.put(None)  # finish this batch, then stop
                    break
                batch.append(item)
            self._run(batch)

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
