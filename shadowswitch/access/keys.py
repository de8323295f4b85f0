"""Agent keys: made here, stored only as a sha256 and a short prefix, looked up through a short cache.

Like LiteLLM's virtual keys: the key is random, shown once; the database holds its hash, so a
copy of the database grants nothing. The cache holds every active key by hash and reloads them
all every `ttl_s`: no database read per request, and a revoked key stops working within `ttl_s`
on every replica.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

import anyio

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
    """Every active key by hash, reloaded (all at once, off the event loop) when older than `ttl_s`."""

    def __init__(self, load: Callable[[], KeySet], ttl_s: float = CACHE_TTL_S):
        self._load = load
        self.ttl_s = ttl_s
        self._keys = KeySet({})
        self._loaded_at = float("-inf")
        self._lock = asyncio.Lock()

    async def current(self) -> KeySet:
        if time.monotonic() - self._loaded_at < self.ttl_s:
            return self._keys
        async with self._lock:  # one reload, however many requests arrive meanwhile
            if time.monotonic() - self._loaded_at >= self.ttl_s:
                self._keys = await anyio.to_thread.run_sync(self._load)
                self._loaded_at = time.monotonic()
        return self._keys

    async def find(self, key: str) -> AgentKey | None:
        return (await self.current()).by_hash.get(key_hash(key))

    @property
    def last(self) -> KeySet:
        """The keys as last loaded, without waiting."""
        return self._keys

    def invalidate(self) -> None:
        """This replica at once (a key made or revoked here); the others within `ttl_s`."""
        self._loaded_at = float("-inf")
