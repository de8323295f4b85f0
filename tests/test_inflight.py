"""In-flight work: comparisons are bounded, other background work is not, and drain waits for all."""

from __future__ import annotations

import asyncio

from shadowswitch.proxy.inflight import InFlight


def test_comparisons_beyond_the_bound_are_refused_and_drain_waits_for_the_rest() -> None:
    async def scenario() -> tuple[list[bool], list[str]]:
        inflight = InFlight(max_comparisons=2)
        release = asyncio.Event()
        done: list[str] = []

        async def run(name: str) -> None:
            await release.wait()
            done.append(name)

        taken = [inflight.compare(run(f"compare {i}")) for i in range(3)]
        inflight.spawn(run("breaker"))  # never refused
        inflight.spawn(run("feedback"))
        draining = asyncio.create_task(inflight.drain())
        await asyncio.sleep(0)
        assert not draining.done()  # the runs are still waiting
        release.set()
        await draining
        return taken, sorted(done)

    taken, done = asyncio.run(scenario())
    assert taken == [True, True, False]
    assert done == ["breaker", "compare 0", "compare 1", "feedback"]
