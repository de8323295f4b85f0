"""The pure parts of access: the key cache's reload, the limit windows, and what each refuses."""

from __future__ import annotations

import asyncio
import threading
from datetime import UTC, datetime

from shadowswitch.access.keys import AgentKey, KeyCache, KeySet, key_hash, new_key
from shadowswitch.access.limits import Windows, decision_cost, over_limit
from shadowswitch.store.tables import Decision


def test_a_key_is_random_prefixed_and_only_its_hash_is_kept() -> None:
    first, second = new_key(), new_key()
    assert first != second and first.startswith("ss-") and len(first) > 40
    assert key_hash(first) == key_hash(first) != key_hash(second) and first not in key_hash(first)


def test_the_cache_reloads_every_key_at_once_and_only_after_its_ttl() -> None:
    key = new_key()
    loads: list[KeySet] = [KeySet({key_hash(key): AgentKey("a", key[:10])}, True), KeySet({}, True)]
    calls = []

    def load() -> KeySet:
        calls.append(1)
        return loads[min(len(calls), len(loads)) - 1]

    async def run() -> tuple[AgentKey | None, AgentKey | None, AgentKey | None]:
        cache = KeyCache(load, ttl_s=3600)
        found = await asyncio.gather(*(cache.find(key) for _ in range(20)))  # 20 requests, one load
        before = await cache.find(key)
        await cache.reload()  # a revocation on this replica
        return found[0], before, await cache.find(key)

    found, before, after = asyncio.run(run())
    assert found is not None and found.name == "a" and before is not None
    assert after is None and len(calls) == 2


def test_windows_are_utc_minutes_and_days_with_the_wait_until_they_end() -> None:
    windows = Windows.at(datetime(2026, 12, 3, 23, 59, 15, 500_000, tzinfo=UTC))
    assert (windows.minute, windows.day) == ("m:2026-12-03T23:59", "d:2026-12-03")
    assert (windows.minute_left_s, windows.day_left_s) == (45, 45)


def test_over_limit_says_which_limit_and_how_long_to_wait() -> None:
    windows = Windows.at(datetime(2026, 12, 3, 12, 0, 30, tzinfo=UTC))
    key = AgentKey("a", "ss-", rpm=2, budget_usd_per_day=1.0)
    assert over_limit(key, 2, 0.99, windows) is None
    rpm = over_limit(key, 3, 0.0, windows)
    assert rpm is not None and rpm.code == "rate_limit_exceeded" and rpm.retry_after_s == 30
    budget = over_limit(key, 1, 1.0, windows)
    assert budget is not None and budget.code == "budget_exceeded" and budget.retry_after_s == 12 * 3600 - 30
    assert over_limit(AgentKey("b", "ss-"), 10**6, 10**6, windows) is None


def test_a_local_answer_or_an_unpriced_model_costs_nothing() -> None:
    def row(path: str, model: str) -> Decision:
        return Decision(
            id="d",
            task_type="t",
            path=path,
            route="r",
            mode="m",
            upstream_model=model,
            prompt_tokens=1000,
            completion_tokens=100,
        )

    assert decision_cost(row("generative", "openai/gpt-4o-mini")) > 0
    assert decision_cost(row("local", "openai/gpt-4o-mini")) == 0
    assert decision_cost(row("generative", "openai/no-such-model-here")) == 0


class Scripted:
    """A key table read in turn: each read gives the next answer (a set, or an error raised)."""

    def __init__(self, *answers: KeySet | Exception):
        self.answers, self.reads = list(answers), 0

    def __call__(self) -> KeySet:
        answer = self.answers[min(self.reads, len(self.answers) - 1)]
        self.reads += 1
        if isinstance(answer, Exception):
            raise answer
        return answer


def test_a_set_older_than_the_ttl_is_read_again_before_it_lets_a_request_in() -> None:
    key = new_key()
    known = KeySet({key_hash(key): AgentKey("a", key[:10])}, True)
    load = Scripted(known, known, RuntimeError("database away"), KeySet({}, True))
    now = [0.0]

    async def run() -> list[tuple[bool, int]]:
        cache = KeyCache(load, ttl_s=2.0, clock=lambda: now[0])
        seen = []
        for at in (0.0, 1.0, 3.0, 6.0, 6.5):  # the first load; fresh; stale; away; still away
            now[0] = at
            seen.append((await cache.find(key) is not None, load.reads))
        await cache.reload()  # the database is back (a notice, or the clock's loop)
        seen.append((await cache.find(key) is not None, load.reads))
        return seen

    # read at 0 and 3; at 6 the read fails: the last set stays and requests stop waiting on reads
    assert asyncio.run(run()) == [(True, 1), (True, 1), (True, 2), (True, 3), (True, 3), (False, 4)]


def test_a_database_too_slow_to_answer_leaves_the_last_set_in_force() -> None:
    key = new_key()
    known = KeySet({key_hash(key): AgentKey("a", key[:10])}, True)
    release = threading.Event()
    answers = iter([known, KeySet({}, True)])

    def load() -> KeySet:
        answer = next(answers)
        if not answer.by_hash:  # the second read hangs until released
            release.wait(5)
        return answer

    async def run() -> tuple[bool, bool]:
        cache = KeyCache(load, ttl_s=0.05, timeout_s=0.1)
        assert await cache.find(key) is not None
        await asyncio.sleep(0.06)  # stale now; the database does not answer within the timeout
        while_slow = await cache.find(key) is not None
        release.set()
        await cache.reload()
        return while_slow, await cache.find(key) is not None

    assert asyncio.run(run()) == (True, False)


def test_the_keys_are_read_by_the_clock_without_any_request() -> None:
    load = Scripted(KeySet({}, False))

    async def run() -> int:
        cache = KeyCache(load, ttl_s=0.1)
        loop = asyncio.create_task(cache.keep_fresh())
        await asyncio.sleep(0.35)
        loop.cancel()
        return load.reads

    assert asyncio.run(run()) >= 4  # every half TTL, no request at all


def test_a_notice_has_the_keys_read_again_at_once_whatever_the_ttl() -> None:
    key = new_key()
    load = Scripted(KeySet({key_hash(key): AgentKey("a", key[:10])}, True), KeySet({}, True))

    async def run() -> tuple[bool, bool]:
        cache = KeyCache(load, ttl_s=3600)
        before = await cache.find(key) is not None
        cache.refresh_soon()  # as the database's NOTIFY calls it
        while load.reads < 2 or cache._reading is not None:
            await asyncio.sleep(0.01)
        return before, await cache.find(key) is not None

    assert asyncio.run(run()) == (True, False)


def test_limits_let_a_request_through_when_the_database_cannot_count_it() -> None:
    from sqlalchemy import create_engine

    from shadowswitch.access.gate import Caller, Gate
    from shadowswitch.access.store import KeyStore, UsageStore

    engine = create_engine("sqlite://")  # no tables: every count fails as a database away does
    gate = Gate(KeyStore(engine), UsageStore(engine), ())
    limited = Caller(key=AgentKey("a", "ss-", rpm=1))
    asyncio.run(gate.admit(limited))  # neither raises nor refuses: the answer is served
    engine.dispose()
