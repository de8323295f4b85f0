"""The worker thread: batches concurrent jobs, answers every caller, survives failures."""

from __future__ import annotations

import asyncio
import threading
import time
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


async def test_one_bad_job_in_a_batch_fails_only_itself() -> None:
    def run(jobs: Sequence[int]) -> list[int]:
        time.sleep(0.05)  # let the others queue up behind the first, into one batch
        if 0 in jobs:
            raise RuntimeError("boom")
        return [j * 2 for j in jobs]

    worker: Worker[int, int] = Worker(run)
    try:
        results = await asyncio.gather(*(worker.submit(i) for i in range(6)), return_exceptions=True)
    finally:
        worker.close()
    assert isinstance(results[0], RuntimeError)
    assert results[1:] == [2, 4, 6, 8, 10]


async def test_a_server_away_fails_the_whole_batch_at_once() -> None:
    """A remote model server that cannot be reached would fail each job alone too, one timeout
    after another: the batch fails together, `run_batch` called once for it."""
    from shadowswitch.errors import EngineUnavailable

    calls: list[int] = []

    def run(jobs: Sequence[int]) -> list[int]:
        calls.append(len(jobs))
        time.sleep(0.05)  # the others queue up behind the first
        if len(calls) > 1:
            raise EngineUnavailable("http://127.0.0.1:9/v1/completions cannot be reached (ConnectError)")
        return list(jobs)

    worker: Worker[int, int] = Worker(run, max_batch=8)
    try:
        assert await worker.submit(-1) == -1  # the first batch, alone
        first = asyncio.ensure_future(worker.submit(0))
        await asyncio.sleep(0.01)
        rest = [worker.submit(i) for i in range(1, 6)]
        results = await asyncio.gather(first, *rest, return_exceptions=True)
    finally:
        worker.close()
    assert all(isinstance(r, EngineUnavailable) for r in results)
    assert sum(calls[1:]) == 6 and len(calls) <= 3  # no job retried alone


async def test_served_jobs_run_before_background_jobs_queued_earlier() -> None:
    """A shadow agent's queued jobs do not hold a user's request: the served job runs next, and
    background jobs run one at a time, never in a served batch."""
    batches: list[list[int]] = []
    hold = threading.Event()

    def run(jobs: Sequence[int]) -> list[int]:
        if jobs == [-1]:
            hold.wait(5)  # the engine busy while the others queue
        batches.append(list(jobs))
        return list(jobs)

    worker: Worker[int, int] = Worker(run, max_batch=8)
    try:
        busy = asyncio.ensure_future(worker.submit(-1))
        await asyncio.sleep(0.05)
        background = [asyncio.ensure_future(worker.submit(100 + i, background=True)) for i in range(3)]
        await asyncio.sleep(0.01)
        served = [asyncio.ensure_future(worker.submit(i)) for i in range(2)]
        await asyncio.sleep(0.01)
        hold.set()
        results = await asyncio.gather(busy, *background, *served)
    finally:
        worker.close()
    assert results == [-1, 100, 101, 102, 0, 1]
    assert batches[1] == [0, 1]  # the served pair first, together
    assert batches[2:] == [[100], [101], [102]]  # then background, one at a time


async def test_a_background_job_waits_only_so_long_behind_a_stream_of_served_ones() -> None:
    """Served requests that never stop do not starve learning: a background job that has waited
    `background_wait_s` runs between two served batches."""
    batches: list[list[int]] = []

    def run(jobs: Sequence[int]) -> list[int]:
        time.sleep(0.02)
        batches.append(list(jobs))
        return list(jobs)

    worker: Worker[int, int] = Worker(run, max_batch=2, background_wait_s=0.1)
    stop = asyncio.Event()

    async def user(k: int) -> None:
        while not stop.is_set():
            await worker.submit(k)

    try:
        users = [asyncio.ensure_future(user(k)) for k in range(4)]
        await asyncio.sleep(0.05)
        begun = time.monotonic()
        assert await worker.submit(99, background=True) == 99
        waited = time.monotonic() - begun
        stop.set()
        await asyncio.gather(*users)
    finally:
        worker.close()
    assert 0.1 <= waited < 2.0
    assert [99] in batches and all(99 not in b for b in batches if b != [99])


async def test_closing_fails_the_jobs_still_queued() -> None:
    from shadowswitch.errors import EngineUnavailable

    hold = threading.Event()

    def run(jobs: Sequence[int]) -> list[int]:
        hold.wait(5)
        return list(jobs)

    worker: Worker[int, int] = Worker(run)
    busy = asyncio.ensure_future(worker.submit(0))
    await asyncio.sleep(0.05)
    queued = asyncio.ensure_future(worker.submit(1, background=True))
    await asyncio.sleep(0.01)
    closing = asyncio.get_running_loop().run_in_executor(None, worker.close)
    await asyncio.sleep(0.05)
    hold.set()
    await closing
    assert await busy == 0
    with pytest.raises(EngineUnavailable):
        await queued


async def test_a_background_backlog_never_runs_twice_in_a_row_ahead_of_a_user() -> None:
    batches: list[list[int]] = []
    hold = threading.Event()

    def run(jobs: Sequence[int]) -> list[int]:
        if jobs == [-1]:
            hold.wait(5)
        batches.append(list(jobs))
        return list(jobs)

    worker: Worker[int, int] = Worker(run, max_batch=1, background_wait_s=0.0)
    try:
        busy = asyncio.ensure_future(worker.submit(-1))
        await asyncio.sleep(0.05)
        queued = [asyncio.ensure_future(worker.submit(100 + i, background=True)) for i in range(3)]
        queued += [asyncio.ensure_future(worker.submit(i)) for i in range(3)]
        await asyncio.sleep(0.01)
        hold.set()
        await asyncio.gather(busy, *queued)
    finally:
        worker.close()
    assert batches[1:] == [[100], [0], [101], [1], [102], [2]]


async def test_a_background_job_gives_way_at_once_and_runs_again_after() -> None:
    """A long background job stops at its next check when a served job is queued, and is run
    again, whole, once the served one is done."""
    from shadowswitch.engines.local.runtime import budget

    runs: list[int] = []

    def run(jobs: Sequence[int]) -> list[int]:
        runs.append(jobs[0])
        if jobs[0] >= 100:
            for _ in range(50):  # 0.5 s of model layers
                time.sleep(0.01)
                budget.check()
        return list(jobs)

    worker: Worker[int, int] = Worker(run, background_wait_s=5.0)
    try:
        background = asyncio.ensure_future(worker.submit(100, background=True))
        await asyncio.sleep(0.1)
        begun = time.monotonic()
        assert await worker.submit(1) == 1
        served_s = time.monotonic() - begun
        assert await background == 100
    finally:
        worker.close()
    assert served_s < 0.3
    assert runs == [100, 1, 100]


async def test_a_background_job_has_the_background_budget_unless_run_ahead_of_a_user() -> None:
    """Alone, a background job's budget is the background's; run ahead of queued served jobs (it
    waited too long), its policy's again, which bounds how long they wait."""
    from shadowswitch.engines.local.runtime import budget

    seen: dict[int, float] = {}
    hold = threading.Event()

    def run(jobs: Sequence[int]) -> list[int]:
        if jobs == [-1]:
            hold.wait(5)
        seen.update({job: budget.allowed(250) for job in jobs})
        return list(jobs)

    worker: Worker[int, int] = Worker(run, max_batch=1, background_wait_s=0.0)
    try:
        assert await worker.submit(100, background=True) == 100
        busy = asyncio.ensure_future(worker.submit(-1))
        await asyncio.sleep(0.05)
        queued = [asyncio.ensure_future(worker.submit(101, background=True))]
        queued += [asyncio.ensure_future(worker.submit(i)) for i in range(2)]
        await asyncio.sleep(0.01)
        hold.set()
        await asyncio.gather(busy, *queued)
    finally:
        worker.close()
    assert seen[100] == budget.BACKGROUND_BUDGET_MS > 250
    assert seen[101] == 250 and seen[0] == seen[1] == 250
