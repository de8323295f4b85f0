"""The worker thread: batches concurrent jobs, answers every caller, survives failures."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence

import pytest

from shadowswitch.engines.local.runtime.worker import Worker


async def test_concurrent_jobs_are_batched_on_one_thread() -> None:
    seen: list[tuple[int, str]] = []

    def run(jobs: Sequence[int]) -> list[int]:
        seen.append((len(jobs), threading.current_thread().name))
        return [j * 2 for j in jobs]

    worker: Worker[int, int] = Worker(run, max_batch=8)
    try:
        results = await asyncio.gather(*[worker.submit(i) for i in range(16)])
    finally:
        worker.close()
    assert results == [i * 2 for i in range(16)]
    assert {name for _, name in seen} == {"shadowswitch-engine"}
    assert max(size for size, _ in seen) > 1


async def test_a_failing_batch_fails_its_callers_only() -> None:
    def run(jobs: Sequence[int]) -> list[int]:
        if 0 in jobs:
            raise RuntimeError("boom")
        return list(jobs)

    worker: Worker[int, int] = Worker(run)
    try:
        with pytest.raises(RuntimeError):
            await worker.submit(0)
        assert await worker.submit(5) == 5
    finally:
        worker.close()
