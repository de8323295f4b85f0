"""The breaker's database side: every step is one read-modify-write under a row lock.

Replicas report outcomes at the same time; each step locks the task type's
`rollout` row (SELECT ... FOR UPDATE on PostgreSQL, BEGIN IMMEDIATE on
SQLite), applies the pure state machine in `shadowswitch.rollouts.breaker` to what it
read, and writes the result with its audit record in the same transaction.
So no count is lost, and a trip (or re-probe, or restore) happens once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine

from shadowswitch.policy.models import Breaker
from shadowswitch.rollouts.breaker import BreakerState, Step, counts_as, on_failure, on_success, on_tick
from shadowswitch.rollouts.routing import RolloutView
from shadowswitch.rollouts.states import BreakerTransition
from shadowswitch.rollouts.store.ramp_state import abort_for_trip
from shadowswitch.rollouts.store.rollouts import audit_event, read_breaker, write_breaker, write_session
from shadowswitch.store.tables import Rollout, utcnow

ACTOR = "breaker"


@dataclass(frozen=True)
class Change:
    """A transition that happened (and was audited) in this process."""

    task_type: str
    kind: str  # trip | reprobe | restore
    reason: str
    decision_ids: list[str]
    percent: float  # the rollout's own percent: what a restore returns to
    reprobe_wait_s: float | None


@dataclass(frozen=True)
class Written:
    """The row as committed, and the transition, when the step made one."""

    row: Rollout
    change: Change | None = None


StepFn = Callable[[BreakerState, datetime], Step]


class BreakerStore:
    """Synchronous; call from a worker thread."""

    def __init__(self, engine: Engine, clock: Callable[[], datetime] = utcnow):
        self.engine = engine
        self.clock = clock

    def record(self, task_type: str, config: Breaker, decision_id: str, event: str) -> Written | None:
        """Count one local-path outcome; None when it changed nothing."""
        counted = counts_as(event, config)
        if counted is None:
            return None
        if counted:
            return self._apply(task_type, config, lambda s, _now: on_success(s, config))
        return self._apply(task_type, config, lambda s, now: on_failure(s, config, decision_id, event, now))

    def tick(self, task_type: str, config: Breaker) -> Written | None:
        """Start re-probing when the wait is over (whichever replica comes first does it)."""
        return self._apply(task_type, config, lambda s, now: on_tick(s, now))

    def _apply(self, task_type: str, config: Breaker, step: StepFn) -> Written | None:
        with write_session(self.engine) as session:
            row = session.get(Rollout, task_type, with_for_update=True)
            if row is None:
                return None
            before, now = read_breaker(row), self.clock()
            result = step(before, now)
            if result.state == before:
                return None
            old = (row.mode, _local_percent(row, config))
            write_breaker(row, result.state)
            row.updated_at = now
            change = _change(row, result) if result.transition else None
            if change:
                new = (row.mode, _local_percent(row, config))
                ids = change.decision_ids or None
                session.add(audit_event(row, now, ACTOR, change.kind, old, new, change.reason, ids))
                aborted = (
                    abort_for_trip(row, now, change.reason) if change.kind == BreakerTransition.TRIP else None
                )
                if aborted:  # in the trip's transaction: no replica can step the ramp after it
                    session.add(aborted)
            session.add(row)
            session.commit()
            session.refresh(row)
            return Written(row, change)


def _change(row: Rollout, step: Step) -> Change:
    ids = step.state.decision_ids if step.transition == BreakerTransition.TRIP else []
    kind = step.transition or ""
    return Change(row.task_type, kind, step.reason, ids, row.percent, step.state.reprobe_wait_s)


def _local_percent(row: Rollout, config: Breaker) -> float:
    """What the audit log shows: the share served locally, the breaker taken into account."""
    return RolloutView(row.mode, row.percent, row.breaker_state, config.reprobe_percent).local_percent
