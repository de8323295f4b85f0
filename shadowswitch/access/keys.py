"""Agent keys: made here, stored only as a sha256 and a short prefix, looked up through a short cache.

Like LiteLLM's virtual keys: the key is random, shown once; the database holds its hash, so a
copy of the database grants nothing. The cache holds every active key by hash and re-reads them
all by the clock: no database read per request, and a revoked key stops working within `ttl_s`
on every replica, whatever the traffic.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

import anyio

log = logging.getLogger(__name__)
PREFIX = "ss-"  # recognisable in a leak scan, as `sk-` is
SHOWN = 10  # characters of the key kept for display ("ss-AbCdEfG")
CACHE_TTL_S = 2.0


@dataclass(frozen=True)
class AgentKey:
    """What a request's key allows: the name decisions are recorded under, task types, limits."""

    name: str
    prefix: str
    task_types: frozenset[str] | None = None  # None: every task type
    rpm: int | None = None
    budget_usd_per_day: float | None = None

    @property
    def limited(self) -> bool:
        return self.rpm is not None or self.budget_usd_per_day is not None

    def allows(self, task_type: str) -> bool:
        return self.task_types is None or task_type in self.task_types


@dataclass(frozen=True)
class KeySet:
    by_hash: dict[str, AgentKey]  # the active keys
    any_made: bool = False  # a revoked key counts: revoking the last one must not open the proxy

    def named(self, name: str) -> AgentKey | None:
        return next((k for k in self.by_hash.values() if k.name == name), None)


def new_key() -> str:
    return PREFIX + secrets.token_urlsafe(32)


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class KeyCache:
    """Every active key by hash, re-read all at once, off the event loop, by the clock.

    A background loop re-reads the keys every half `ttl_s` (and at once on a database notice,
    `refresh_soon`), so a request rarely waits on the database. A set older than `ttl_s` is never
    used to let a request in while the database answers: the request waits for one fresh read
    (shared by every request meanwhile). With the database away (an error, or no answer within
    `timeout_s`) the last set stays in force, which is logged, and requests stop waiting on
    reads until the next one succeeds."""

    def __init__(
        self,
        load: Callable[[], KeySet],
        ttl_s: float = CACHE_TTL_S,
        timeout_s: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ):
        self._load = load
        self.ttl_s, self.timeout_s, self._clock = ttl_s, timeout_s, clock
        self._keys: KeySet | None = None
        self._loaded_at = float("-inf")  # when the read that gave the set began
        self._away = False  # the last read failed: the database counts as away until one succeeds
        self._reading: asyncio.Task[None] | None = None
        self._woken: set[asyncio.Task[None]] = set()  # the reads notices asked for, held till done

    async def current(self) -> KeySet:
        if self._keys is None:  # the first load: waited for, whatever happens
            await self._shared_read()
        elif self._clock() - self._loaded_at >= self.ttl_s and not self._away:
            await self._fresh_or_last()
        assert self._keys is not None
        return self._keys

    async def reload(self) -> None:
        """Read every key now (at start, and where a key was just made or revoked); raises when
        the database cannot answer."""
        await self._shared_read()

    async def keep_fresh(self) -> None:
        """Re-read every half TTL, whatever the traffic, until cancelled (a service's task)."""
        while True:
            await asyncio.sleep(self.ttl_s / 2)
            await self._fresh_or_last()

    def refresh_soon(self) -> None:
        """A notice that a key changed (PostgreSQL's NOTIFY): read them all again, now."""
        self._away = False  # the notice came through the database: it answers
        task = asyncio.get_running_loop().create_task(self._fresh_or_last())
        self._woken.add(task)
        task.add_done_callback(self._woken.discard)

    async def _fresh_or_last(self) -> None:
        try:
            await asyncio.wait_for(asyncio.shield(self._shared_read()), self.timeout_s)
        except Exception as exc:  # the database away, whatever its driver raised
            if not self._away:
                log.warning(
                    "could not re-read agent keys (%s); the %d last known stay in force until the "
                    "database answers",
                    type(exc).__name__,
                    len(self.last.by_hash),
                )
            self._away = True

    async def _shared_read(self) -> None:
        """One read at a time; whoever asks meanwhile waits for the one under way."""
        if self._reading is None:
            self._reading = asyncio.get_running_loop().create_task(self._read())
            self._reading.add_done_callback(_retrieved)  # its error is seen even if no one waits
        reading = self._reading
        await asyncio.shield(reading)

    async def _read(self) -> None:
        try:
            began = self._clock()
            keys = await anyio.to_thread.run_sync(self._load)
            if self._away:
                log.info("agent keys read again: %d in force", len(keys.by_hash))
            self._keys, self._loaded_at, self._away = keys, began, False
        finally:
            self._reading = None

    async def find(self, key: str) -> AgentKey | None:
        return (await self.current()).by_hash.get(key_hash(key))

    @property
    def last(self) -> KeySet:
        """The keys as last loaded, without waiting."""
        return self._keys or KeySet({})


def _retrieved(task: asyncio.Task[None]) -> None:
    if not task.cancelled():
        task.exception()
