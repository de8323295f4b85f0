"""What runs beside the routes: services started in order at start-up and stopped in reverse.

The app holds one list; `Services` starts each in turn and, at shutdown, stops those that started,
last first, so a service can rely on every one before it (the database outlives the recorder).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Protocol

log = logging.getLogger(__name__)

Hook = Callable[[], Awaitable[None] | None]


class Service(Protocol):
    name: str

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


async def _nothing() -> None:
    return None


async def _run(hook: Hook) -> None:
    result = hook()
    if inspect.isawaitable(result):
        await result


@dataclass
class Hooks:
    """A service made of two callables, sync or async (most of ours have start/stop already)."""

    name: str
    on_start: Hook = _nothing
    on_stop: Hook = _nothing

    async def start(self) -> None:
        await _run(self.on_start)

    async def stop(self) -> None:
        await _run(self.on_stop)


class Task:
    """A background coroutine: started as a task, cancelled at stop."""

    def __init__(self, name: str, work: Callable[[], Coroutine[Any, Any, None]]):
        self.name, self.work = name, work
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self.task = asyncio.create_task(self.work(), name=self.name)

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()


class Services:
    def __init__(self, services: list[Service]):
        self.services = services
        self.started: list[Service] = []

    async def start(self) -> None:
        """Start each in turn; if one fails, stop those already started and raise."""
        for service in self.services:
            try:
                await service.start()
            except BaseException:
                await self.stop()
                raise
            self.started.append(service)

    async def stop(self) -> None:
        """Stop what started, in reverse; one failing to stop does not keep the others running."""
        while self.started:
            service = self.started.pop()
            try:
                await service.stop()
            except Exception:
                log.exception("shutdown: %s did not stop cleanly", service.name)
