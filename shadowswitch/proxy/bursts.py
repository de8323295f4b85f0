"""An async stream taken in bursts: the items already there when the consumer asks, together.

A fast upstream's streamed answer arrives in a read or two; relayed chunk by chunk it costs the
server a socket write, and a pass down the ASGI stack, per chunk. Taken in bursts, the chunks
that came together leave together, and no chunk waits for a later one: a burst is only what was
ready when the last one had been handed on.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

T = TypeVar("T")
_END = object()


@dataclass
class _Failed:
    error: BaseException


@dataclass
class Burst(Generic[T]):
    items: list[T]
    last: bool  # the source has ended after these items


async def bursts(source: AsyncIterator[T]) -> AsyncGenerator[Burst[T], None]:
    """`source`'s items in bursts; its exception is raised after the items that came before it.

    A task reads `source` ahead into an unbounded queue (a streamed answer is small, and the
    upstream sends it whole anyway); closing this generator cancels that task, which ends the
    upstream read at once."""
    queue: asyncio.Queue[Any] = asyncio.Queue()

    async def pump() -> None:
        try:
            async for item in source:
                queue.put_nowait(item)
        except BaseException as exc:  # a cancellation too: the consumer must not wait forever
            queue.put_nowait(_Failed(exc))
            if not isinstance(exc, Exception):
                raise
        else:
            queue.put_nowait(_END)

    reader = asyncio.create_task(pump())
    try:
        while True:
            taken = [await queue.get()]
            while not queue.empty():
                taken.append(queue.get_nowait())
            items = [item for item in taken if item is not _END and not isinstance(item, _Failed)]
            end = taken[-1]  # _END or _Failed can only come last: the reader stops there
            if isinstance(end, _Failed):
                if items:
                    yield Burst(items, last=False)
                raise end.error
            yield Burst(items, last=end is _END)
            if end is _END:
                return
    finally:
        reader.cancel()
