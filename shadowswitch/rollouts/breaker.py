"""The auto-revert breaker of one task type: a pure state machine, the clock passed in.

closed ──N failures in a row──▶ open ──reprobe_at reached──▶ half_open
   ▲                              ▲                              │
   └──── restore_after_successes ─┼──────── successes ◀──────────┤
                                  └──── one failure (wait × 2) ◀─┘

What counts: a failure is an invalid local answer, an engine error, negative
feedback, and — when the policy says so — an abstention or a disagreement.
An engine process that could not be reached (`unavailable`) is neither.
A success is positive feedback, or a valid local answer that no feedback can
follow (plain content or an action). A valid answer made of tool calls is
*pending*: the agent's next request carries its tool result, which decides
(SPEC: a decision succeeds unless feedback says otherwise). Counting such an
answer as a success at once would reset the streak before its error arrives,
and a run of failing tool calls would never trip the breaker.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from shadowswitch.policy.models import Breaker
from shadowswitch.states import BreakerTransition, Circuit

FAILURES = {
    "invalid": "invalid output",
    "error": "engine error",
    "negative": "negative feedback",
    "abstain": "abstained",
    "disagree": "disagreed with the generative path",
}
SUCCESSES = frozenset({"valid", "positive"})


@dataclass(frozen=True)
class BreakerState:
    """One task type's breaker, as stored in its `rollout` row."""

    state: str = Circuit.CLOSED
    failures: tuple[tuple[str, str], ...] = ()  # (decision id, event) of the current streak
    tripped_at: datetime | None = None
    reprobe_at: datetime | None = None  # open → half_open at this time; None: wait for a person
    reprobe_wait_s: float | None = None  # the wait used for the last trip (doubles on re-trip)
    half_open_successes: int = 0

    @property
    def decision_ids(self) -> list[str]:
        return [decision_id for decision_id, _ in self.failures]


@dataclass(frozen=True)
class Step:
    """The state after an event, and the transition it made, if any."""

    state: BreakerState
    transition: BreakerTransition | None = None
    reason: str = ""

    @property
    def changed(self) -> bool:
        return self.transition is not None


def counts_as(event: str, config: Breaker) -> bool | None:
    """True: a success; False: a failure; None: the event does not count (pending, or not counted)."""
    if event in SUCCESSES:
        return True
    if event == "abstain" and not config.count_abstain:
        return None
    if event == "disagree" and not config.count_disagreement:
        return None
    return False if event in FAILURES else None


def on_failure(s: BreakerState, config: Breaker, decision_id: str, event: str, now: datetime) -> Step:
    """Count a failure; trip at the threshold, or at once while re-probing."""
    if s.state == Circuit.OPEN or decision_id in s.decision_ids:
        return Step(s)  # already reverted, or the same decision reported twice
    failures = (*s.failures, (decision_id, event))
    if s.state == Circuit.HALF_OPEN:
        wait = _next_wait(s.reprobe_wait_s, config)
        reason = f"failed while re-probing ({FAILURES.get(event, event)}) on decision {decision_id}"
        return _trip(failures, wait, now, reason)
    if len(failures) >= config.consecutive_failures:
        return _trip(failures, config.reprobe_after_s, now, streak_reason(failures))
    return Step(replace(s, failures=failures))


def on_success(s: BreakerState, config: Breaker) -> Step:
    """A success ends a streak; enough of them while re-probing restore the rollout."""
    if s.state == Circuit.OPEN:
        return Step(s)  # a late outcome of a decision made before the trip
    if s.state == Circuit.CLOSED:
        return Step(replace(s, failures=()))
    successes = s.half_open_successes + 1
    if successes >= config.restore_after_successes:
        return Step(BreakerState(), BreakerTransition.RESTORE, f"{successes} successes while re-probing")
    return Step(replace(s, failures=(), half_open_successes=successes))


def on_tick(s: BreakerState, now: datetime) -> Step:
    """Time passes: an open breaker whose wait is over starts re-probing."""
    if s.state != Circuit.OPEN or s.reprobe_at is None or now < s.reprobe_at:
        return Step(s)
    half_open = replace(s, state=Circuit.HALF_OPEN, failures=(), half_open_successes=0, reprobe_at=None)
    return Step(half_open, BreakerTransition.REPROBE, f"re-probing after {s.reprobe_wait_s:g} s")


def reset() -> BreakerState:
    """A person acted (rollout set, policy change): the breaker closes and forgets."""
    return BreakerState()


def streak_reason(failures: tuple[tuple[str, str], ...]) -> str:
    """E.g. '3 local failures in a row: negative feedback ×2, invalid output'."""
    counts = Counter(FAILURES.get(event, event) for _, event in failures)
    parts = [name if n == 1 else f"{name} ×{n}" for name, n in counts.most_common()]
    return f"{len(failures)} local failures in a row: {', '.join(parts)}"


def _trip(failures: tuple[tuple[str, str], ...], wait: float, now: datetime, reason: str) -> Step:
    reprobe_at = now + timedelta(seconds=wait) if wait > 0 else None
    state = BreakerState(Circuit.OPEN, failures, now, reprobe_at, wait or None, 0)
    return Step(state, BreakerTransition.TRIP, reason)


def _next_wait(previous: float | None, config: Breaker) -> float:
    """Double the last wait, within the cap; 0 stays 0 (no automatic re-probe)."""
    if config.reprobe_after_s <= 0:
        return 0.0
    # a cap below the first wait would shorten it: the first wait always holds
    cap = max(config.max_reprobe_after_s, config.reprobe_after_s)
    return min(max(previous or 0.0, config.reprobe_after_s) * 2, cap)
