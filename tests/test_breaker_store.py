"""The breaker's database side on a real database: concurrent processes lose no count and trip once."""

from __future__ import annotations

import multiprocessing
import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from shadowswitch.policy.models import Breaker, Policy
from shadowswitch.rollouts.store.repository import RolloutRepository
from shadowswitch.store import db

TASK = "pick_tool"


def policy(**breaker: Any) -> Policy:
    return Policy(
        task_type=TASK,
        rollout={"mode": "canary", "percent": 50},
        breaker={"consecutive_failures": 3, "reprobe_after_s": 60, "reprobe_percent": 5, **breaker},
    )


def stores(url: str, p: Policy, clock: Any = None) -> tuple[RolloutRepository, RolloutRepository]:
    db.upgrade(url)
    engine = db.make_engine(url)
    rollouts = RolloutRepository(engine)
    rollouts.sync_policies({p.task_type: p})
    return rollouts, RolloutRepository(engine, clock) if clock else RolloutRepository(engine)


def kinds(rollouts: RolloutRepository, kind: str) -> list[Any]:
    return [e for e in rollouts.audit(TASK, limit=1000) if e.kind == kind]


def _fail_many(url: str, config: dict[str, Any], prefix: str, n: int, barrier: Any) -> None:
    """One 'replica': its own process, engine and connections."""
    store = RolloutRepository(db.make_engine(url))
    barrier.wait()
    for i in range(n):
        store.record(TASK, Breaker(**config), f"{prefix}{i}", "negative")


def race_processes(url: str, threshold: int, per_process: int) -> None:
    config = policy(consecutive_failures=threshold).breaker.model_dump()
    spawn = multiprocessing.get_context("spawn")
    barrier = spawn.Barrier(2)
    workers = [
        spawn.Process(target=_fail_many, args=(url, config, prefix, per_process, barrier))
        for prefix in ("a", "b")
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
        assert worker.exitcode == 0


@pytest.mark.integration  # processes of their own
@pytest.mark.parametrize("backend", ["under_test", "postgres"])
def test_two_processes_failing_at_once_lose_no_count_and_trip_once(
    backend: str, db_url: str, request: pytest.FixtureRequest
) -> None:
    url = db_url if backend == "under_test" else request.getfixturevalue("pg_url")
    rollouts, _ = stores(url, policy(consecutive_failures=40))
    race_processes(url, threshold=40, per_process=20)  # exactly the threshold: one lost count → no trip
    row = rollouts.get(TASK)
    assert row.breaker_state == "open"
    trips = kinds(rollouts, "trip")
    assert len(trips) == 1
    assert len(trips[0].decision_ids) == 40 and len(set(trips[0].decision_ids)) == 40
    assert (trips[0].old_percent, trips[0].new_percent) == (50, 0)


@pytest.mark.integration  # processes of their own
def test_below_the_threshold_every_failure_is_counted(db_url: str) -> None:
    rollouts, _ = stores(db_url, policy(consecutive_failures=100))
    race_processes(db_url, threshold=100, per_process=15)
    row = rollouts.get(TASK)
    assert (row.breaker_state, row.consecutive_failures) == ("closed", 30)
    assert kinds(rollouts, "trip") == []


def test_one_replica_starts_the_reprobe(db_url: str) -> None:
    later = datetime.now(UTC) + timedelta(seconds=61)
    rollouts, breaker = stores(db_url, policy())
    config = policy().breaker
    for i in range(3):
        breaker.record(TASK, config, f"d{i}", "error")
    ticking = RolloutRepository(breaker.engine, clock=lambda: later)
    results: list[Any] = []
    threads = [
        threading.Thread(target=lambda: results.append(ticking.reprobe(TASK, config))) for _ in range(6)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len([r for r in results if r and r.change]) == 1
    assert rollouts.get(TASK).breaker_state == "half_open"
    (reprobe,) = kinds(rollouts, "reprobe")
    assert (reprobe.actor, reprobe.old_percent, reprobe.new_percent) == ("breaker", 0, 5)


def test_restore_returns_to_the_earlier_percent(db_url: str) -> None:
    later = datetime.now(UTC) + timedelta(seconds=61)
    rollouts, breaker = stores(db_url, policy(restore_after_successes=2))
    config = policy(restore_after_successes=2).breaker
    for i in range(3):
        breaker.record(TASK, config, f"d{i}", "invalid")
    probing = RolloutRepository(breaker.engine, clock=lambda: later)
    assert probing.reprobe(TASK, config) is not None
    assert probing.record(TASK, config, "ok1", "positive").change is None  # type: ignore[union-attr]
    written = probing.record(TASK, config, "ok2", "valid")
    assert written is not None and written.change is not None and written.change.kind == "restore"
    row = rollouts.get(TASK)
    assert (row.breaker_state, row.mode, row.percent) == ("closed", "canary", 50)
    (restore,) = kinds(rollouts, "restore")
    assert (restore.old_percent, restore.new_percent) == (5, 50)


def test_pending_and_uncounted_events_write_nothing(db_url: str) -> None:
    rollouts, breaker = stores(db_url, policy())
    config = policy().breaker
    assert breaker.record(TASK, config, "d1", "pending") is None
    assert breaker.record(TASK, config, "d2", "abstain") is None
    assert breaker.record(TASK, config, "d3", "valid") is None  # nothing to reset
    assert rollouts.get(TASK).consecutive_failures == 0


def test_a_person_closes_the_breaker(db_url: str) -> None:
    rollouts, breaker = stores(db_url, policy(reprobe_after_s=0))
    config = policy(reprobe_after_s=0).breaker
    for i in range(3):
        breaker.record(TASK, config, f"d{i}", "negative")
    assert rollouts.get(TASK).breaker_state == "open"
    row = rollouts.set(TASK, actor="cli:alice", percent=20, reason="fixed the prompt")
    assert (row.breaker_state, row.consecutive_failures, row.percent) == ("closed", 0, 20)
    (event,) = kinds(rollouts, "set")
    assert event.actor == "cli:alice"
    assert event.reason == "fixed the prompt (closes the open breaker)"


def test_a_changed_policy_file_is_an_audited_change_that_closes_the_breaker(db_url: str) -> None:
    rollouts, breaker = stores(db_url, policy())
    for i in range(3):
        breaker.record(TASK, policy().breaker, f"d{i}", "error")
    edited = policy().model_copy(update={"rollout": policy().rollout.model_copy(update={"percent": 20})})
    (event,) = rollouts.sync_policies({TASK: edited})
    assert (event.actor, event.kind, event.old_percent, event.new_percent) == ("policy", "policy", 50, 20)
    assert "closes the open breaker" in (event.reason or "")
    assert rollouts.get(TASK).breaker_state == "closed"
    assert rollouts.sync_policies({TASK: edited}) == []  # unchanged file: nothing to do


def test_replicas_starting_together_seed_once(db_url: str) -> None:
    db.upgrade(db_url)
    engine = db.make_engine(db_url)
    errors: list[BaseException] = []

    def seed() -> None:
        try:
            RolloutRepository(engine).sync_policies({TASK: policy()})
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=seed) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert [e.kind for e in RolloutRepository(engine).audit(TASK)] == ["seed"]
