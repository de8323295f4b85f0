"""The ramp's decisions, pure: given a step's evidence and the policy, advance, wait or fail.

A ramp moves a task type from shadow through `steps` (canary percents) while the evidence at
each step passes. Evidence is read with the anytime-valid bounds of `analysis/sequential.py`, the same
ones the verdict uses, so checking it every few seconds does not turn a lucky run into a pass:
- fail at once, whatever the step's age, when the evidence says worse beyond doubt: agreement
  below the target, local success worse than generative, validity below its floor, or the served
  state's certificate withdrawn;
- advance when the step is old enough, has enough pairs, and agreement is at or above the target
  beyond doubt (its lower bound), success not worse, validity at its floor and, where the policy
  certifies, the served state certified;
- otherwise wait, and say for what.
The ramp's position is the rollout itself (shadow, or canary at a percent), so a person's change
is simply where a resumed ramp carries on from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from shadowswitch.analysis.sequential import confidence_sequence
from shadowswitch.analysis.verdict import Counts, success_comparison
from shadowswitch.policy.models import Ramp
from shadowswitch.states import RampAction, RampOutcome, RampState, RolloutMode

RUNNING, PAUSED, HELD, REVERTED, ABORTED, DONE = "running", "paused", "held", "reverted", "aborted", "done"
STOPPED = (RampState.PAUSED, RampState.HELD, RampState.REVERTED)  # a person may resume these
ACTIONS = tuple(RampAction)


@dataclass(frozen=True)
class StepEvidence:
    """What happened at the current step (decisions made since it began)."""

    agreement: Counts = field(default_factory=Counts)  # pairs: both paths answered one request
    local_success: Counts = field(default_factory=Counts)  # judged local answers
    generative_success: Counts = field(default_factory=Counts)  # judged generative answers
    local_valid: Counts = field(default_factory=Counts)  # local answers checked against the request
    certificate: str | None = (
        None  # the served state's: certified | uncertified | withdrawn (None: not asked)
    )


@dataclass(frozen=True)
class Check:
    outcome: RampOutcome
    reason: str  # a sentence with the figures
    waiting: list[str] = field(default_factory=list)  # what a waiting ramp still needs
    figures: dict[str, Any] = field(default_factory=dict)  # kept on the audit event


def next_step(steps: list[float], mode: str, percent: float) -> float | None:
    """The percent the ramp goes to next from this rollout; None past the last step."""
    if mode != RolloutMode.CANARY:
        return steps[0]
    return next((s for s in steps if s > percent), None)


def steps_done(steps: list[float], mode: str, percent: float) -> int:
    """How many of the steps the rollout has reached (0 in shadow)."""
    return 0 if mode != RolloutMode.CANARY else sum(1 for s in steps if s <= percent)


def evaluate(config: Ramp, evidence: StepEvidence, elapsed_s: float) -> Check:
    """Advance, wait or fail, from one step's evidence and how long the step has lasted."""
    figures = _figures(config, evidence, elapsed_s)
    failed = _failure(config, evidence)
    if failed:
        return Check(RampOutcome.FAIL, f"{failed}: {_summary(config, evidence)}", figures=figures)
    waiting = _waiting(config, evidence, elapsed_s)
    if waiting:
        return Check(RampOutcome.WAIT, "waits for " + "; ".join(waiting), waiting, figures)
    return Check(RampOutcome.ADVANCE, _summary(config, evidence), figures=figures)


def command(state: str | None, action: str) -> str:
    """The ramp state after a person's action; ValueError says why the action does not apply."""
    if action == RampAction.START:
        if state == RampState.RUNNING:
            raise ValueError("the ramp is already running")
        return RampState.RUNNING
    if action == RampAction.RESUME:
        if state not in STOPPED:
            raise ValueError(f"nothing to resume: the ramp is {state or 'not started'} (use start)")
        return RampState.RUNNING
    if action == RampAction.PAUSE:
        if state != RampState.RUNNING:
            raise ValueError(f"nothing to pause: the ramp is {state or 'not started'}")
        return RampState.PAUSED
    if action == RampAction.ABORT:
        if state not in (RampState.RUNNING, *STOPPED):
            raise ValueError(f"nothing to abort: the ramp is {state or 'not started'}")
        return RampState.ABORTED
    raise ValueError(f"action must be one of {', '.join(ACTIONS)}")


def position(mode: str | None, percent: float | None) -> str:
    """Where a rollout is on the ramp, as its texts say it: `shadow`, `canary 5%`."""
    return f"canary {percent or 0:g}%" if mode == RolloutMode.CANARY else str(mode)


def steps_text(steps: list[float]) -> str:
    return ", ".join(f"{s:g}" for s in steps) + "%"


def agreement_text(pairs: Counts) -> str:
    """E.g. 'agreement 96.8% [94.1–98.4]': the rate and its anytime-valid bounds."""
    if not pairs.total:
        return "no pairs yet"
    low, high = confidence_sequence(pairs.hits, pairs.total)
    return f"agreement {100 * (pairs.rate or 0):.1f}% [{100 * low:.1f}–{100 * high:.1f}]"


def duration_text(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f}s"
    if seconds < 7200:
        return f"{seconds / 60:.0f}m"
    return f"{seconds / 3600:.1f}h"


def _failure(config: Ramp, evidence: StepEvidence) -> str | None:
    require = config.require
    if evidence.certificate == "withdrawn":
        return "the served state's certificate was withdrawn"
    pairs = evidence.agreement
    if pairs.total and confidence_sequence(pairs.hits, pairs.total)[1] < require.agreement:
        return f"agreement below {require.agreement:.0%}"
    local, generative = evidence.local_success, evidence.generative_success
    if require.success_not_worse and success_comparison(local, generative) == "worse":
        return "local succeeds less often than generative"
    valid = evidence.local_valid
    if valid.total and confidence_sequence(valid.hits, valid.total)[1] < require.valid:
        return f"valid answers below {require.valid:.0%}"
    return None


def _waiting(config: Ramp, evidence: StepEvidence, elapsed_s: float) -> list[str]:
    pairs, require = evidence.agreement, config.require
    waiting = []
    if pairs.total < config.min_pairs:
        waiting.append(f"{pairs.total} of {config.min_pairs} pairs")
    agreed = bool(pairs.total) and confidence_sequence(pairs.hits, pairs.total)[0] >= require.agreement
    if not agreed:
        waiting.append(f"{agreement_text(pairs)}, needs ≥ {require.agreement:.0%} beyond doubt")
    if evidence.certificate not in (None, "certified"):
        waiting.append("a certified region (learning certifies one on shadow pairs)")
    valid = evidence.local_valid
    if valid.total and (valid.rate or 0.0) < require.valid:
        waiting.append(f"valid {valid.hits} of {valid.total}, needs {require.valid:.0%}")
    if elapsed_s < config.min_duration_s:
        waiting.append(f"{duration_text(elapsed_s)} of {duration_text(config.min_duration_s)}")
    if waiting and agreed:  # still show where agreement stands: "132 of 200 pairs; agreement 96.8% [...]"
        waiting.insert(1 if pairs.total < config.min_pairs else 0, agreement_text(pairs))
    return waiting


def _summary(config: Ramp, evidence: StepEvidence) -> str:
    parts = [f"{evidence.agreement.total} pairs", agreement_text(evidence.agreement)]
    parts.append(f"target {config.require.agreement:.0%}")
    for name, counts in (("local success", evidence.local_success), ("valid", evidence.local_valid)):
        if counts.total:
            parts.append(f"{name} {counts.hits}/{counts.total}")
    if evidence.generative_success.total:
        g = evidence.generative_success
        parts.append(f"generative success {g.hits}/{g.total}")
    return "; ".join(parts)


def _figures(config: Ramp, evidence: StepEvidence, elapsed_s: float) -> dict[str, Any]:
    pairs = evidence.agreement
    bounds = confidence_sequence(pairs.hits, pairs.total) if pairs.total else None
    return {
        "pairs": pairs.total,
        "agreeing": pairs.hits,
        "agreement": _round(pairs.rate),
        "agreement_cs": [_round(b) for b in bounds] if bounds else None,
        "target": config.require.agreement,
        "min_pairs": config.min_pairs,
        "elapsed_s": round(elapsed_s, 1),
        "min_duration_s": config.min_duration_s,
        "local_success": [evidence.local_success.hits, evidence.local_success.total],
        "generative_success": [evidence.generative_success.hits, evidence.generative_success.total],
        "valid": [evidence.local_valid.hits, evidence.local_valid.total],
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def elapsed_s(moment: datetime, since: datetime) -> float:
    """Seconds from `since` to `moment`, never negative (clocks of replicas differ a little)."""
    return max((moment - since).total_seconds(), 0.0)
