"""What the pipeline has in flight: requests being answered, and background work beside them.

Background work is of two kinds: comparisons (shadow and compare runs), bounded so that a burst
cannot pile them up, and breaker/feedback/learning work, never skipped. Shutdown drains both.
Both run marked as background (`engines.priority`): the engine serves a user's requests first.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from shadowswitch.engines.priority import background_context

MAX_COMPARISONS = 32  # shadow/compare runs in flight; beyond, a run is skipped and the skip recorded


class InFlight:
    def __init__(self, max_comparisons: int = MAX_COMPARISONS):
        self.max_comparisons = max_comparisons
        self._background: set[asyncio.Task[None]] = set()
        self._comparisons: set[asyncio.Task[None]] = set()
        self._requests: set[asyncio.Task[Any]] = set()  # the tasks answering requests (and streams)

    @property
    def background(self) -> int:
        """Background work not yet ended: shadow and comparison runs, learning, breaker events."""
        return len(self._background)

    def track_request(self) -> None:
        """Shutdown waits for this request's task: its answer, its stream, or its record as cut off."""
        task = asyncio.current_task()
        if task is not None and task not in self._requests:
            self._requests.add(task)
            task.add_done_callback(self._requests.discard)

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Breaker, feedback and learning work: never skipped (the breaker depends on every event).
        Its engine jobs (learning's fills) wait behind the requests a user waits for."""
        self._track(asyncio.create_task(work, context=background_context()))

    def compare(self, work: Coroutine[Any, Any, None]) -> bool:
        """Run a comparison in the background; False (and `work` closed) when there is no room."""
        if len(self._comparisons) >= self.max_comparisons:
            work.close()
            return False
        task = asyncio.create_task(work, context=background_context())  # behind served requests
        self._comparisons.add(task)
        task.add_done_callback(self._comparisons.discard)
        self._track(task)
        return True

    async def drain(self) -> None:
        """Wait for requests still finishing and for every background run."""
        while self._background or self._requests:
            await asyncio.gather(*self._requests, *self._background, return_exceptions=True)

    def _track(self, task: asyncio.Task[None]) -> None:
        self._background.add(task)
        task.add_done_callback(self._background.discard)
