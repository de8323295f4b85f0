"""Agent keys: made here, stored only as a sha256 and a short prefix, looked up through a short cache.

Like LiteLLM's virtual keys: the key is random, shown once; the database holds its hash, so a
copy of the database grants nothing. The cache holds every active key by hash and reloads them
all every `ttl_s`: no database read per request, and a revoked key stops working within `ttl_s`
on every replica.
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
    """Every active key by hash, reloaded all at once, off the event loop, when older than `ttl_s`.

    Only the first load is waited for (the server does it at start). After that a request never
    waits on the database: a stale set is served while one reload runs in the background, and a
    reload that fails (the database away) keeps the last set and is tried again after `ttl_s`."""

    def __init__(self, load: Callable[[], KeySet], ttl_s: float = CACHE_TTL_S):
        self._load = load
        self.ttl_s = ttl_s
        self._keys: KeySet | None = None
        self._loaded_at = float("-inf")
        self._lock = asyncio.Lock()
        self._reloading: asyncio.Task[None] | None = None

    async def current(self) -> KeySet:
        if self._keys is None:
            async with self._lock:  # one first load, however many requests arrive meanwhile
                if self._keys is None:
                    await self._read()
        elif time.monotonic() - self._loaded_at >= self.ttl_s and self._reloading is None:
            self._reloading = asyncio.get_running_loop().create_task(self._reload_in_background())
        assert self._keys is not None
        return self._keys

    async def reload(self) -> None:
        """Read every key now (at start, and where a key was just made or revoked)."""
        async with self._lock:
            await self._read()

    async def _read(self) -> None:
        keys = await anyio.to_thread.run_sync(self._load)
        self._keys, self._loaded_at = keys, time.monotonic()

    async def _reload_in_background(self) -> None:
        try:
            await self.reload()
        except Exception as exc:  # the database away: keep the keys known, try again later
            log.warning("could not re-read agent keys (%s); using the last known ones", type(exc).__name__)
            self._loaded_at = time.monotonic()
        finally:
            self._reloading = None

    async def find(self, key: str) -> AgentKey | None:
        return (await self.current()).by_hash.get(key_hash(key))

    @property
    def last(self) -> KeySet:
        """The keys as last loaded, without waiting."""
        return self._keys or KeySet({})
