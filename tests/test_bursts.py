"""Streams taken in bursts: what was ready together goes together, nothing waits for later items."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from shadowswitch.proxy.bursts import Burst, bursts


def test_ready_items_go_together_and_none_waits_for_a_later_one() -> None:
    async def scenario() -> None:
        later = asyncio.Event()

        async def source() -> AsyncIterator[str]:
            for item in ("a", "b", "c"):
                yield item
            await later.wait()
            yield "d"

        taken = bursts(source())
        first = await asyncio.wait_for(taken.__anext__(), 5)  # "d" is not there yet: no wait for it
        assert first == Burst(["a", "b", "c"], last=False)
        later.set()
        assert [burst async for burst in taken] == [Burst(["d"], last=True)]

    asyncio.run(scenario())


def test_an_empty_source_ends_at_once() -> None:
    async def scenario() -> list[Burst[str]]:
        async def source() -> AsyncIterator[str]:
            return
            yield

        return [burst async for burst in bursts(source())]

    assert asyncio.run(scenario()) == [Burst([], last=True)]


def test_a_failure_comes_after_the_items_before_it() -> None:
    async def scenario() -> tuple[list[Burst[str]], BaseException | None]:
        async def source() -> AsyncIterator[str]:
            yield "a"
            yield "b"
            raise ValueError("broke off")

        seen: list[Burst[str]] = []
        try:
            async for burst in bursts(source()):
                seen.append(burst)
        except ValueError as exc:
            return seen, exc
        return seen, None

    seen, error = asyncio.run(scenario())
    assert [item for burst in seen for item in burst.items] == ["a", "b"]
    assert not any(burst.last for burst in seen)
    assert isinstance(error, ValueError) and str(error) == "broke off"


def test_closing_the_consumer_ends_the_read_ahead() -> None:
    async def scenario() -> bool:
        cancelled = asyncio.Event()

        async def source() -> AsyncIterator[str]:
            yield "a"
            try:
                await asyncio.sleep(3600)  # an upstream that has gone quiet
            except asyncio.CancelledError:
                cancelled.set()
                raise
            yield "never"

        taken = bursts(source())
        assert (await taken.__anext__()).items == ["a"]
        await taken.aclose()  # the client went away
        await asyncio.wait_for(cancelled.wait(), 5)
        return cancelled.is_set()

    assert asyncio.run(scenario())


@pytest.mark.parametrize("size", [1, 50])
def test_every_item_arrives_once_in_order(size: int) -> None:
    async def scenario() -> list[int]:
        async def source() -> AsyncIterator[int]:
            for i in range(size):
                yield i
                if i % 7 == 0:
                    await asyncio.sleep(0.001)  # some arrive apart, some together

        return [item async for burst in bursts(source()) for item in burst.items]

    assert asyncio.run(scenario()) == list(range(size))
