"""The ramp's database side on a real database: seeding, a person's word, the breaker, acting once.

Decisions are written straight into the real database (the proxy end to end is in
test_ramp_proxy.py); the clock is passed in so that a step's duration is over without waiting.
"""

from __future__ import annotations

import getpass
import json
import threading
import uuid
from datetime import timedelta
from typing import Any

import pytest
from typer.testing import CliRunner

from shadowswitch.cli import app as cli
from shadowswitch.policy.models import Policy
from shadowswitch.rollouts.store.repository import RolloutRepository
from shadowswitch.store import db
from shadowswitch.store.decisions import DecisionStore, _Insert
from shadowswitch.store.tables import Decision, utcnow

TASK = "pick_tool"
LATER = timedelta(hours=1)


def policy(**ramp: Any) -> Policy:
    return Policy(
        task_type=TASK,
        rollout={
            "mode": "off",
            "compare_percent": 100,
            "ramp": {"min_pairs": 10, "min_duration": "10m", **ramp},
        },
        breaker={"consecutive_failures": 2, "reprobe_after_s": 0},
    )


def stores(url: str, p: Policy | None = None) -> tuple[RolloutRepository, RolloutRepository]:
    db.upgrade(url)
    engine = db.make_engine(url)
    rollouts = RolloutRepository(engine)
    rollouts.sync_policies({TASK: p or policy()})
    return rollouts, RolloutRepository(engine, clock=lambda: utcnow() + LATER)


def pairs(url: str, agree: int, disagree: int = 0) -> None:
    rows = [
        Decision(
            id=uuid.uuid4().hex, task_type=TASK, path="generative", route="shadow", mode="shadow", agreement=a
        )
        for a in [True] * agree + [False] * disagree
    ]
    DecisionStore(db.make_engine(url)).write([_Insert(r) for r in rows])


def kinds(rollouts: RolloutRepository) -> list[str]:
    return [e.kind for e in reversed(rollouts.audit(TASK, limit=100))]


def test_a_policy_ramp_starts_once_from_shadow(db_url: str) -> None:
    rollouts, _ = stores(db_url)
    row = rollouts.get(TASK)
    assert (row.mode, row.ramp_state) == ("shadow", "running")  # a ramp begins in shadow
    assert kinds(rollouts) == ["seed", "ramp_start"]
    start = rollouts.audit(TASK)[0]
    assert (start.old_mode, start.new_mode, start.actor) == ("off", "shadow", "policy")
    rollouts.sync_policies({TASK: policy()})  # every replica syncs at start: nothing new
    assert kinds(rollouts) == ["seed", "ramp_start"]


def test_evidence_moves_the_ramp_and_the_audit_carries_it(db_url: str) -> None:
    rollouts, ramps = stores(db_url)
    pairs(db_url, agree=5)
    assert ramps.tick(rollouts.get(TASK)) is None  # 5 of 10 pairs: wait
    assert ramps.status(rollouts.get(TASK))["waiting"][0] == "5 of 10 pairs"  # type: ignore[index]
    pairs(db_url, agree=195)
    moved = ramps.tick(rollouts.get(TASK))
    assert moved is not None and (moved.mode, moved.percent, moved.ramp_state) == ("canary", 5, "running")
    event = rollouts.audit(TASK)[0]
    assert event.kind == "ramp_step" and event.figures["pairs"] == 200 and event.figures["agreement"] == 1.0
    assert ramps.tick(rollouts.get(TASK)) is None  # a new step: a new window, no pairs in it yet


def test_a_manual_set_pauses_and_a_policy_change_too(db_url: str) -> None:
    rollouts, ramps = stores(db_url)
    rollouts.set(TASK, actor="cli:ops", mode="canary", percent=20, reason="by hand")
    row = rollouts.get(TASK)
    assert row.ramp_state == "paused" and kinds(rollouts)[-2:] == ["set", "ramp_pause"]
    pairs(db_url, agree=300)
    assert ramps.tick(row) is None
    resumed = ramps.command(TASK, "resume", "cli:ops")
    assert resumed.ramp_state == "running" and (resumed.mode, resumed.percent) == ("canary", 20)
    changed = policy().model_copy(deep=True)
    changed.rollout.percent = 50
    rollouts.sync_policies({TASK: changed})
    assert rollouts.get(TASK).ramp_state == "paused" and kinds(rollouts)[-1] == "ramp_pause"


def test_a_trip_aborts_the_ramp_in_the_same_transaction(db_url: str) -> None:
    rollouts, _ = stores(db_url)
    breaker = RolloutRepository(rollouts.engine)
    config = policy().breaker
    for i in range(2):
        breaker.record(TASK, config, f"d{i}", "error")
    row = rollouts.get(TASK)
    assert (row.breaker_state, row.ramp_state) == ("open", "aborted")
    abort = rollouts.audit(TASK)[0]
    assert (abort.kind, abort.actor) == ("ramp_abort", "breaker")
    assert kinds(rollouts)[-2:] == ["trip", "ramp_abort"]


@pytest.mark.slow  # PostgreSQL whatever the backend: once per CI run is enough
def test_two_replicas_ticking_the_same_step_move_it_once(pg_url: str) -> None:
    rollouts, _ = stores(pg_url)
    pairs(pg_url, agree=300)
    seen = rollouts.get(TASK)
    barrier = threading.Barrier(8)
    moved: list[Any] = []

    def replica() -> None:
        ramps = RolloutRepository(
            db.make_engine(pg_url), clock=lambda: utcnow() + LATER
        )  # own pool, as a process
        barrier.wait()
        moved.append(ramps.tick(seen))

    threads = [threading.Thread(target=replica) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len([m for m in moved if m is not None]) == 1
    assert kinds(rollouts).count("ramp_step") == 1 and rollouts.get(TASK).percent == 5


def test_cli_ramp_commands_and_status(db_url: str) -> None:
    rollouts, _ = stores(db_url)
    runner = CliRunner()
    paused = runner.invoke(cli, ["rollout", "ramp", TASK, "pause", "--reason", "lunch", "--db", db_url])
    assert paused.exit_code == 0 and "paused" in paused.output
    again = runner.invoke(cli, ["rollout", "ramp", TASK, "pause", "--db", db_url])
    assert again.exit_code == 1 and "nothing to pause" in again.output
    wrong = runner.invoke(cli, ["rollout", "ramp", TASK, "sideways", "--db", db_url])
    assert wrong.exit_code == 2
    assert runner.invoke(cli, ["rollout", "ramp", TASK, "resume", "--db", db_url]).exit_code == 0
    pairs(db_url, agree=3)
    status = runner.invoke(cli, ["rollout", "status", "--json", "--db", db_url])
    ramp = json.loads(status.output)["rollouts"][0]["ramp"]
    assert ramp["state"] == "running" and ramp["waiting"][0] == "3 of 10 pairs"
    assert "3 of 10 pairs" in ramp["text"]
    table = runner.invoke(cli, ["rollout", "status", "--db", db_url], env={"COLUMNS": "400"})
    assert "3 of 10 pairs" in table.output and "ramp_resume" in table.output
    assert [e.actor for e in rollouts.audit(TASK, limit=2)] == [f"cli:{getpass.getuser()}"] * 2
