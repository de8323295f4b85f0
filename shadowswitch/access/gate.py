"""The agent-facing door: which key a request carries (401), its limits (429), its spend.

The agent key comes from `X-Shadowswitch-Key`, else from the bearer token. A bearer that is not
the agent key is the caller's own provider key, for task types whose policy says
`upstream.auth: passthrough`; it is held for the request only.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio
from sqlalchemy.exc import SQLAlchemyError

from shadowswitch.access.keys import CACHE_TTL_S, AgentKey, KeyCache, key_hash
from shadowswitch.access.limits import Windows, decision_cost, over_limit
from shadowswitch.access.roles import AdminToken, match_admin
from shadowswitch.errors import ShadowswitchError, Unauthorized

if TYPE_CHECKING:
    from shadowswitch.access.store import KeyStore, UsageStore
    from shadowswitch.store.tables import Decision

log = logging.getLogger(__name__)
KEY_HEADER = "x-shadowswitch-key"
NOW = partial(datetime.now, UTC)  # the wall clock, in UTC as the store keeps it


@dataclass(frozen=True)
class Caller:
    key: AgentKey | None = None  # the agent key presented (None: none needed, or an admin)
    admin: AdminToken | None = None
    provider_key: str | None = None  # the bearer, when it was not spent on the agent key

    def __repr__(self) -> str:  # never the provider key, in a log or a traceback
        return f"Caller(key={self.key and self.key.name!r}, admin={self.admin and self.admin.name!r})"


class RateLimited(ShadowswitchError):
    status_code = 429
    error_type = "rate_limit_error"

    def __init__(self, message: str, retry_after_s: int, code: str):
        super().__init__(message, code=code)
        self.headers["Retry-After"] = str(retry_after_s)


def challenge(message: str, code: str | None = "invalid_api_key") -> Unauthorized:
    """A 401 the openai SDK raises as AuthenticationError, asking for a bearer token."""
    error = Unauthorized(message, code=code)
    error.headers["WWW-Authenticate"] = "Bearer"
    return error


def bearer(headers: Mapping[str, str]) -> str | None:
    scheme, _, value = headers.get("authorization", "").partition(" ")
    return value.strip() or None if scheme.lower() == "bearer" else None


class Gate:
    def __init__(
        self,
        keys: KeyStore,
        usage: UsageStore,
        admins: tuple[AdminToken, ...],
        required: bool = False,
        ttl_s: float | None = None,
        timeout_s: float = 5.0,
        clock: Callable[[], datetime] = NOW,
    ):
        self.keys = keys
        self.usage = usage
        self.admins = admins
        self.required = required  # SHADOWSWITCH_AGENT_AUTH=required: even before any key exists
        self.cache = KeyCache(keys.known, ttl_s or CACHE_TTL_S, timeout_s)
        self.timeout_s = timeout_s  # a database this slow counts as away: the limits let requests pass
        self.clock = clock
        self._writes: set[asyncio.Task[Any]] = set()

    async def agent(self, headers: Mapping[str, str], admin_may: bool = False) -> Caller:
        """Who is calling: 401 (OpenAI's body) for a missing, unknown or revoked key, when keys are
        in force. `admin_may`: an admin token is accepted as well (feedback on any decision)."""
        given, token = headers.get(KEY_HEADER), bearer(headers)
        if admin_may and token and not given and (admin := match_admin(token, self.admins)):
            return Caller(admin=admin)
        known = await self.cache.current()
        if not (self.required or known.any_made or given):
            return Caller(provider_key=token)  # no keys in force: open, as before keys
        presented = given or token
        if not presented:
            raise challenge("this proxy needs an agent key: send it as the bearer token")
        key = known.by_hash.get(key_hash(presented))
        if key is None:
            raise challenge("invalid, unknown or revoked agent key")
        return Caller(key=key, provider_key=token if given else None)

    async def admit(self, caller: Caller) -> None:
        """Count the request against its key's limits; 429 with Retry-After when over one."""
        key = caller.key
        if key is None or not key.limited:
            return
        windows = Windows.at(self.clock())
        try:  # asyncio's thread, not anyio's: a wait given up on does not hold the request
            counting = asyncio.to_thread(self.usage.count, key.name, windows.minute, windows.day)
            requests, spent = await asyncio.wait_for(counting, self.timeout_s)
        except (SQLAlchemyError, TimeoutError) as exc:
            # The database is away: serve rather than refuse (it is never on the answer's path);
            # this request is not counted.
            log.warning("could not count key %r's request (%s): let through", key.name, type(exc).__name__)
            return
        refusal = over_limit(key, requests, spent, windows)
        if refusal is not None:
            raise RateLimited(refusal.message, refusal.retry_after_s, refusal.code)

    def spent(self, decision: Decision) -> None:
        """A recorded decision: its upstream money goes on its key's day, off the event loop."""
        key = self.cache.last.named(decision.key_name) if decision.key_name else None
        if key is None or key.budget_usd_per_day is None:
            return
        usd = decision_cost(decision)
        if usd > 0:
            day = Windows.at(self.clock()).day
            self._spawn(anyio.to_thread.run_sync(self.usage.spend, key.name, day, usd))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._writes.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._writes.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("could not count a key's spend: %s", type(task.exception()).__name__)

    async def drain(self) -> None:
        if self._writes:
            await asyncio.gather(*self._writes, return_exceptions=True)
