"""The breaker state machine, pure: the clock is a number we move by hand."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from shadowswitch.policy.models import Breaker
from shadowswitch.rollouts.breaker import (
    BreakerState,
    Step,
    counts_as,
    on_failure,
    on_success,
    on_tick,
    reset,
)
from shadowswitch.states import Circuit

T0 = datetime(2026, 1, 1, tzinfo=UTC)
CONFIG = Breaker(
    consecutive_failures=3,
    reprobe_after_s=60,
    reprobe_percent=5,
    restore_after_successes=2,
    max_reprobe_after_s=200,
)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def fail(state: BreakerState, decision_id: str, now: float = 0, event: str = "negative") -> Step:
    return on_failure(state, CONFIG, decision_id, event, at(now))


def tripped(now: float = 0) -> BreakerState:
    state = BreakerState()
    for i in range(3):
        state = fail(state, f"d{i}", now).state
    return state


def test_what_counts() -> None:
    assert counts_as("valid", CONFIG) is True and counts_as("positive", CONFIG) is True
    assert counts_as("invalid", CONFIG) is False and counts_as("error", CONFIG) is False
    assert counts_as("negative", CONFIG) is False
    assert counts_as("pending", CONFIG) is None  # a tool call waits for its tool result
    assert counts_as("abstain", CONFIG) is None and counts_as("disagree", CONFIG) is None
    counting = CONFIG.model_copy(update={"count_abstain": True, "count_disagreement": True})
    assert counts_as("abstain", counting) is False and counts_as("disagree", counting) is False


def test_trips_after_n_failures_in_a_row_naming_them() -> None:
    state = BreakerState()
    for i, event in enumerate(["invalid", "negative"]):
        step = fail(state, f"d{i}", event=event)
        assert step.transition is None and step.state.state == Circuit.CLOSED
        state = step.state
    step = fail(state, "d2", now=5, event="negative")
    assert step.transition == "trip" and step.state.state == Circuit.OPEN
    assert step.state.decision_ids == ["d0", "d1", "d2"]
    assert step.reason == "3 local failures in a row: negative feedback ×2, invalid output"
    assert step.state.tripped_at == at(5) and step.state.reprobe_at == at(65)


def test_a_success_resets_the_streak() -> None:
    state = fail(fail(BreakerState(), "d0").state, "d1").state
    state = on_success(state, CONFIG).state
    assert state.failures == ()
    assert fail(fail(state, "d2").state, "d3").state.state == Circuit.CLOSED


def test_the_same_decision_counts_once() -> None:
    state = fail(fail(BreakerState(), "d0").state, "d0", event="invalid").state
    assert state.decision_ids == ["d0"]


def test_open_ignores_late_verdicts_and_waits() -> None:
    state = tripped()
    assert fail(state, "late").state == state
    assert on_success(state, CONFIG).state == state
    assert on_tick(state, at(59.9)).state == state


def test_half_open_after_the_wait_then_restore_after_successes() -> None:
    step = on_tick(tripped(), at(60))
    assert step.transition == "reprobe" and step.state.state == Circuit.HALF_OPEN
    step = on_success(step.state, CONFIG)
    assert step.transition is None and step.state.half_open_successes == 1
    step = on_success(step.state, CONFIG)
    assert step.transition == "restore" and step.state == BreakerState()


def test_failure_while_half_open_retrips_with_double_wait_up_to_the_cap() -> None:
    state = on_tick(tripped(), at(60)).state
    step = fail(state, "x1", now=100)
    assert step.transition == "trip" and step.state.reprobe_wait_s == 120
    assert step.state.reprobe_at == at(220) and step.state.decision_ids == ["x1"]
    state = on_tick(step.state, at(220)).state
    step = fail(state, "x2", now=300)
    assert step.state.reprobe_wait_s == 200  # 240 capped at max_reprobe_after_s
    state = on_tick(step.state, at(500)).state
    assert fail(state, "x3", now=600).state.reprobe_wait_s == 200


def test_restore_forgets_the_longer_wait() -> None:
    state = on_tick(tripped(), at(60)).state
    state = on_tick(fail(state, "x1", now=100).state, at(220)).state
    state = on_success(on_success(state, CONFIG).state, CONFIG).state
    assert state == BreakerState()
    assert tripped_from(state, now=1000).reprobe_wait_s == 60


def tripped_from(state: BreakerState, now: float) -> BreakerState:
    for i in range(3):
        state = fail(state, f"again{i}", now).state
    return state


def test_reprobe_zero_stays_open_until_a_person_acts() -> None:
    config = CONFIG.model_copy(update={"reprobe_after_s": 0})
    state = BreakerState()
    for i in range(3):
        state = on_failure(state, config, f"d{i}", "error", T0).state
    assert state.state == Circuit.OPEN and state.reprobe_at is None
    assert on_tick(state, at(10**9)).state == state
    assert reset() == BreakerState() and reset().state == Circuit.CLOSED


def test_a_cap_below_the_first_wait_does_not_shorten_it() -> None:
    config = CONFIG.model_copy(update={"max_reprobe_after_s": 10})
    state = BreakerState()
    for i in range(3):
        state = on_failure(state, config, f"d{i}", "error", T0).state
    assert state.reprobe_wait_s == 60
    state = on_tick(state, at(60)).state
    assert on_failure(state, config, "x", "error", at(61)).state.reprobe_wait_s == 60
