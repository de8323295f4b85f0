"""The Rollout aggregate, pure: each method returns the new state and its audit events.

No database here (tests/test_*_store.py write the same changes through the repository); the
clock is a moment passed by hand.
"""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from shadowswitch.analysis.verdict import Counts
from shadowswitch.errors import Conflict, Unprocessable
from shadowswitch.policy.models import Breaker
from shadowswitch.policy.models import Rollout as RolloutPolicy
from shadowswitch.rollouts.ramp import StepEvidence
from shadowswitch.rollouts.rollout import Changed, Rollout
from shadowswitch.rollouts.store.rows import aggregate, as_row

T0 = datetime(2026, 1, 1, tzinfo=UTC)
TASK = "pick_tool"
BREAKER = Breaker(consecutive_failures=2, reprobe_after_s=60, reprobe_percent=5, restore_after_successes=1)
RAMP = {"steps": [10, 50, 100], "min_pairs": 10, "min_duration": "10m"}


def policy(mode: str = "off", percent: float = 0, **ramp: Any) -> RolloutPolicy:
    ramped = {"ramp": {**RAMP, **ramp}, "compare_percent": 100} if ramp else {}
    return RolloutPolicy.model_validate({"mode": mode, "percent": percent, **ramped})


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def kinds(changed: Changed) -> list[str]:
    return [e.kind for e in changed.events]


def canary(percent: float = 50) -> Rollout:
    return Rollout.seed(TASK, policy("canary", percent), T0).rollout


def ramping(**ramp: Any) -> Rollout:
    """A rollout whose policy ramp has just started it, in shadow."""
    return Rollout.seed(TASK, policy(**ramp or {"on_fail": "hold"}), T0).rollout


def tripped(rollout: Rollout) -> Changed:
    first = rollout.record(BREAKER, "d1", "error", at(1)).rollout
    return first.record(BREAKER, "d2", "invalid", at(2))


def agreeing(n: int) -> StepEvidence:
    return StepEvidence(agreement=Counts(n, n))


def test_a_seed_is_its_policy_and_a_policy_ramp_starts_in_shadow() -> None:
    plain = Rollout.seed(TASK, policy("canary", 20), T0)
    assert kinds(plain) == ["seed"] and plain.rollout.setting == ("canary", 20)
    assert (plain.events[0].old, plain.events[0].new, plain.events[0].actor) == (
        (None, None),
        ("canary", 20),
        "policy",
    )
    ramped = Rollout.seed(TASK, policy(on_fail="hold"), T0)
    assert kinds(ramped) == ["seed", "ramp_start"]
    start = ramped.events[1]
    assert (start.old, start.new) == (("off", 0), ("shadow", 0.0))
    assert ramped.rollout.ramp.state == "running" and ramped.rollout.ramp.since == T0


def test_an_unchanged_policy_changes_nothing_and_a_changed_one_closes_the_breaker() -> None:
    rollout = tripped(canary()).rollout
    assert rollout.sync(policy("canary", 50), at(3)) == Changed(rollout)
    changed = rollout.sync(policy("canary", 20), at(3))
    (event,) = changed.events
    assert (event.kind, event.old, event.new) == ("policy", ("canary", 50), ("canary", 20))
    assert event.reason == "policy file changed rollout to canary 20% (closes the open breaker)"
    assert changed.rollout.breaker.state == "closed" and changed.rollout.breaker.failures == ()


def test_a_person_sets_closes_the_breaker_and_pauses_a_running_ramp() -> None:
    changed = ramping().set("cli:ana", at(1), "canary", 20, reason="by hand")
    assert kinds(changed) == ["set", "ramp_pause"] and changed.rollout.setting == ("canary", 20)
    assert changed.rollout.ramp.state == "paused" and "resume" in (changed.rollout.ramp.note or "")
    off = Rollout.seed(TASK, policy(), T0).rollout.set("api:ops", at(1), percent=30)
    assert off.rollout.setting == ("canary", 30)  # asking for a share of an off rollout means canary
    assert off.events[0].old == ("off", 0)


@pytest.mark.parametrize(
    ("mode", "percent", "param"),
    [(None, None, "mode"), ("sideways", None, "mode"), (None, 101, "percent"), (None, math.nan, "percent")],
)
def test_a_set_that_makes_no_sense_is_refused(mode: str | None, percent: float | None, param: str) -> None:
    with pytest.raises(Unprocessable) as refused:
        canary().set("cli:ana", at(1), mode, percent)
    assert refused.value.param == param


def test_commands_move_the_ramp_or_say_why_not() -> None:
    paused = ramping().command("pause", "cli:ana", at(1), "lunch")
    assert kinds(paused) == ["ramp_pause"] and paused.rollout.ramp.state == "paused"
    with pytest.raises(Conflict, match="nothing to pause"):
        paused.rollout.command("pause", "cli:ana", at(2))
    resumed = paused.rollout.command("resume", "cli:ana", at(3))
    assert resumed.rollout.ramp.state == "running" and resumed.rollout.ramp.since == at(3)
    assert "next 10%" in (resumed.events[0].reason or "")
    with pytest.raises(Conflict, match="the breaker is open"):
        tripped(canary()).rollout.command("start", "cli:ana", at(3))


def test_failures_trip_the_breaker_once_and_abort_the_ramp() -> None:
    one = canary().record(BREAKER, "d1", "error", at(1))
    assert one.events == () and one.rollout.breaker.failures == (("d1", "error"),)
    assert one.rollout.record(BREAKER, "d1", "error", at(2)).rollout == one.rollout  # the same decision twice
    trip = tripped(replace(canary(), ramp=ramping().ramp))
    assert kinds(trip) == ["trip", "ramp_abort"]
    assert trip.events[0].decision_ids == ("d1", "d2") and (trip.events[0].old, trip.events[0].new) == (
        ("canary", 50),
        ("canary", 0),
    )
    assert trip.rollout.ramp.state == "aborted" and trip.rollout.breaker.reprobe_at == at(3)
    assert canary().record(BREAKER, "d3", "pending", at(1)) == Changed(canary())


def test_the_reprobe_waits_for_its_time_and_the_successes_restore() -> None:
    rollout = tripped(canary()).rollout
    assert rollout.reprobe(BREAKER, at(2.5)) == Changed(rollout)  # 30 s of 60
    probing = rollout.reprobe(BREAKER, at(3))
    assert kinds(probing) == ["reprobe"] and probing.events[0].new == ("canary", 5)
    restored = probing.rollout.record(BREAKER, "ok", "positive", at(4))
    assert kinds(restored) == ["restore"] and restored.rollout.breaker.state == "closed"
    assert restored.events[0].new == ("canary", 50)


def test_a_tick_waits_steps_holds_and_reverts_on_the_evidence() -> None:
    rollout = ramping()
    assert rollout.tick(agreeing(5), at(20)) == Changed(rollout)  # 5 of 10 pairs
    assert rollout.tick(agreeing(400), at(5)) == Changed(rollout)  # 5 of 10 minutes
    step = rollout.tick(agreeing(400), at(20))
    assert kinds(step) == ["ramp_step"] and step.rollout.setting == ("canary", 10)
    assert step.events[0].figures is not None and step.events[0].figures["pairs"] == 400
    worse = StepEvidence(agreement=Counts(10, 400))
    held = step.rollout.tick(worse, at(21))
    assert kinds(held) == ["ramp_hold"] and held.rollout.setting == ("canary", 10)
    reverted = replace(step.rollout, policy=ramping(on_fail="revert").policy).tick(worse, at(21))
    assert kinds(reverted) == ["ramp_revert"] and reverted.rollout.setting == ("shadow", 0)
    assert reverted.rollout.ramp.state == "reverted"


def test_the_last_step_ends_the_ramp() -> None:
    top = replace(ramping(), mode="canary", percent=50)
    done = top.tick(agreeing(400), at(20))
    assert done.rollout.setting == ("canary", 100) and done.rollout.ramp.state == "done"
    assert "ramp done" in (done.events[0].reason or "")


def test_the_row_holds_the_whole_state() -> None:
    rollout = tripped(replace(canary(), ramp=ramping().ramp, policy=ramping().policy)).rollout
    assert aggregate(as_row(rollout)) == rollout
    naive = as_row(rollout)
    naive.tripped_at = at(2).replace(tzinfo=None)  # as SQLite reads it back
    assert aggregate(naive).breaker.tripped_at == at(2)
