"""The ramp's decisions, pure: evidence in, advance / wait / fail out, with the figures behind them."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from shadowswitch.analysis.sequential import confidence_sequence
from shadowswitch.analysis.verdict import Counts
from shadowswitch.policy.models import Policy, Ramp
from shadowswitch.rollouts.ramp import StepEvidence, command, evaluate, next_step, steps_done

CONFIG = Ramp(min_pairs=200, min_duration="30m", require={"agreement": 0.95})
HOUR = 3600.0


def pairs(hits: int, total: int, **more: Any) -> StepEvidence:
    return StepEvidence(agreement=Counts(hits, total), **more)


def test_positions_follow_the_rollout() -> None:
    steps = [5.0, 25.0, 50.0, 100.0]
    assert next_step(steps, "shadow", 0) == 5 and next_step(steps, "off", 40) == 5
    assert next_step(steps, "canary", 5) == 25 and next_step(steps, "canary", 30) == 50
    assert next_step(steps, "canary", 100) is None
    assert steps_done(steps, "shadow", 0) == 0 and steps_done(steps, "canary", 30) == 2


def test_enough_agreeing_pairs_after_the_duration_advance() -> None:
    check = evaluate(CONFIG, pairs(400, 400), HOUR)
    assert check.outcome == "advance"
    low, high = confidence_sequence(400, 400)
    assert check.figures["agreement_cs"] == [round(low, 4), round(high, 4)] and low >= 0.95
    assert check.figures["pairs"] == 400 and "400 pairs" in check.reason


def test_a_step_needs_the_served_state_certified_and_a_withdrawal_fails_it() -> None:
    assert evaluate(CONFIG, pairs(400, 400, certificate="certified"), HOUR).outcome == "advance"
    waits = evaluate(CONFIG, pairs(400, 400, certificate="uncertified"), HOUR)
    assert waits.outcome == "wait" and "a certified region" in waits.reason
    failed = evaluate(CONFIG, pairs(400, 400, certificate="withdrawn"), HOUR)
    assert failed.outcome == "fail" and "certificate was withdrawn" in failed.reason


def test_too_few_pairs_waits_and_says_how_many() -> None:
    check = evaluate(CONFIG, pairs(132, 132), HOUR)
    assert check.outcome == "wait"
    assert check.waiting[0] == "132 of 200 pairs" and check.waiting[1].startswith("agreement 100.0% [")


def test_the_example_from_the_issue_reads_as_written() -> None:
    hits, total = 128, 132
    low, high = confidence_sequence(hits, total)
    check = evaluate(CONFIG, pairs(hits, total), HOUR)
    expected = f"agreement 97.0% [{100 * low:.1f}–{100 * high:.1f}]"
    assert check.waiting[0] == "132 of 200 pairs" and check.waiting[1].startswith(expected)


def test_a_point_estimate_above_the_target_is_not_enough() -> None:
    """97% observed over 300 pairs: the anytime-valid lower bound is still below 95%: wait."""
    check = evaluate(CONFIG, pairs(291, 300), HOUR)
    assert confidence_sequence(291, 300)[0] < 0.95 < 291 / 300
    assert check.outcome == "wait" and "beyond doubt" in check.waiting[0]


def test_the_duration_holds_a_step_even_with_the_evidence() -> None:
    check = evaluate(CONFIG, pairs(400, 400), 600)
    low = confidence_sequence(400, 400)[0]
    assert check.outcome == "wait" and check.waiting == [
        f"agreement 100.0% [{100 * low:.1f}–100.0]",
        "10m of 30m",
    ]


def test_agreement_below_target_beyond_doubt_fails_at_once() -> None:
    check = evaluate(CONFIG, pairs(30, 60), 1)  # before the duration and min_pairs: worse is worse
    assert check.outcome == "fail" and check.reason.startswith("agreement below 95%")


def test_local_success_worse_fails_and_not_shown_worse_passes() -> None:
    worse = pairs(400, 400, local_success=Counts(50, 100), generative_success=Counts(95, 100))
    assert evaluate(CONFIG, worse, HOUR).outcome == "fail"
    close = pairs(400, 400, local_success=Counts(9, 10), generative_success=Counts(10, 10))
    assert evaluate(CONFIG, close, HOUR).outcome == "advance"
    lenient = CONFIG.model_copy(
        update={"require": CONFIG.require.model_copy(update={"success_not_worse": False})}
    )
    assert evaluate(lenient, worse, HOUR).outcome == "advance"


def test_validity_floor() -> None:
    one_invalid = pairs(400, 400, local_valid=Counts(399, 400))
    assert evaluate(CONFIG, one_invalid, HOUR).outcome == "fail"  # valid: 1.0 means every answer
    relaxed = CONFIG.model_copy(update={"require": CONFIG.require.model_copy(update={"valid": 0.99})})
    assert evaluate(relaxed, one_invalid, HOUR).outcome == "advance"
    unsure = pairs(400, 400, local_valid=Counts(97, 100))  # 97% < 99% but not beyond doubt: wait
    assert evaluate(relaxed, unsure, HOUR).waiting[1] == "valid 97 of 100, needs 99%"


def test_no_pairs_is_never_a_pass() -> None:
    check = evaluate(CONFIG.model_copy(update={"min_pairs": 1, "min_duration": "0s"}), pairs(0, 0), HOUR)
    assert check.outcome == "wait" and "no pairs yet" in check.waiting[1]


@pytest.mark.parametrize(
    ("state", "action", "after"),
    [
        (None, "start", "running"),
        ("aborted", "start", "running"),
        ("done", "start", "running"),
        ("running", "pause", "paused"),
        ("paused", "resume", "running"),
        ("held", "resume", "running"),
        ("reverted", "resume", "running"),
        ("paused", "abort", "aborted"),
        ("running", "abort", "aborted"),
    ],
)
def test_commands(state: str | None, action: str, after: str) -> None:
    assert command(state, action) == after


@pytest.mark.parametrize(
    ("state", "action"),
    [
        ("running", "start"),
        (None, "pause"),
        ("paused", "pause"),
        ("aborted", "resume"),
        (None, "abort"),
        ("done", "abort"),
    ],
)
def test_commands_that_do_not_apply(state: str | None, action: str) -> None:
    with pytest.raises(ValueError):
        command(state, action)


def test_the_policy_format() -> None:
    policy = Policy(
        task_type="t",
        rollout={"mode": "shadow", "compare_percent": 10, "ramp": {"steps": [10, 100], "min_duration": 45}},
    )
    ramp = policy.rollout.ramp
    assert ramp is not None and ramp.min_duration_s == 45 and ramp.on_fail == "hold"
    assert Ramp().steps == [5, 25, 50, 100] and Ramp().min_duration_s == 1800
    for bad in (
        {"steps": [25, 5]},
        {"steps": [0, 50]},
        {"steps": [50, 120]},
        {"min_duration": "soon"},
        {"on_fail": "panic"},
        {"require": {"agreement": 1.5}},
        {"surprise": 1},
    ):
        with pytest.raises(ValidationError):
            Ramp.model_validate(bad)
    with pytest.raises(ValidationError, match="compare_percent"):
        Policy(task_type="t", rollout={"mode": "shadow", "ramp": {}})
