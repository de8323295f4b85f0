"""The ramp's database side: each step's evidence, a person's commands, and the controller's tick.

Every replica ticks (from its refresh loop); each reads the evidence without a lock, and only
when the evidence calls for a move does it lock the task type's `rollout` row, check that the
row is still the one it judged (same state, step and start), and write the move with its audit
event. The first replica to get the lock moves; the others find the row changed and do nothing:
one move, and one audit event, per step.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Engine, and_, case, func, select, true
from sqlmodel import Session, col

from shadowswitch.analysis.verdict import Counts
from shadowswitch.errors import NotFound
from shadowswitch.rollouts.ramp import Check, StepEvidence, elapsed_s, evaluate
from shadowswitch.rollouts.states import Circuit, RampOutcome, RampState
from shadowswitch.rollouts.store.ramp_state import apply_check, apply_command, ramp_config, ramp_json
from shadowswitch.rollouts.store.rollouts import as_utc, write_session
from shadowswitch.store.tables import Decision, RegionCertificate, Rollout, utcnow


class RampStore:
    """Synchronous; call from a worker thread."""

    def __init__(
        self,
        engine: Engine,
        clock: Callable[[], datetime] = utcnow,
        certifies: Callable[[str], bool] = lambda _task: False,
    ):
        self.engine = engine
        self.clock = clock
        self.certifies = certifies  # does the task type's policy serve only certified regions?

    def evidence(self, task_type: str, since: datetime) -> StepEvidence:
        """One aggregate over the task type's decisions since `since`: pairs, success, validity."""
        path, agreement, success = col(Decision.path), col(Decision.agreement), col(Decision.success)
        shadow = col(Decision.shadow)
        local_shadow = and_(shadow["path"].as_string() == "local", shadow["valid"].as_boolean().is_not(None))
        columns = [
            _count(agreement.is_not(None)),
            _count(agreement == true()),
            _count(and_(path == "local", success.is_not(None))),
            _count(and_(path == "local", success == true())),
            _count(and_(path == "generative", success.is_not(None))),
            _count(and_(path == "generative", success == true())),
            _count(path == "local"),  # served locally: checked valid before it was served
            _count(local_shadow),  # run beside the generative answer, or tried and found invalid
            _count(and_(local_shadow, shadow["valid"].as_boolean() == true())),
        ]
        when = and_(col(Decision.task_type) == task_type, col(Decision.created_at) >= since)
        query = select(*columns).where(when)
        with Session(self.engine) as session:
            n = [int(v or 0) for v in session.execute(query).one()]
        return StepEvidence(
            agreement=Counts(n[1], n[0]),
            local_success=Counts(n[3], n[2]),
            generative_success=Counts(n[5], n[4]),
            local_valid=Counts(n[6] + n[8], n[6] + n[7]),
            certificate=self._certificate(task_type) if self.certifies(task_type) else None,
        )

    def _certificate(self, task_type: str) -> str:
        """The status of the task type's certificate in force (`uncertified`: none yet)."""
        query = (
            select(col(RegionCertificate.status))
            .where(col(RegionCertificate.task_type) == task_type)
            .order_by(col(RegionCertificate.id).desc())
            .limit(1)
        )
        with Session(self.engine) as session:
            found = session.execute(query).scalar()
        return str(found or "uncertified")

    def check(self, row: Rollout) -> Check | None:
        """What the controller makes of a running ramp's step now; None when it is not running."""
        since = as_utc(row.ramp_since)
        if row.ramp_state != RampState.RUNNING or since is None:
            return None
        evidence = self.evidence(row.task_type, since)
        return evaluate(ramp_config(row), evidence, elapsed_s(self.clock(), since))

    def status(self, row: Rollout) -> dict[str, Any] | None:
        """The ramp's JSON with what a running one waits for (one aggregate query)."""
        return ramp_json(row, self.check(row))

    def tick(self, seen: Rollout) -> Rollout | None:
        """Judge a running ramp's step and move when the evidence says so; the committed row if moved."""
        if seen.breaker_state != Circuit.CLOSED:
            return None  # the breaker acts first; a trip aborts the ramp
        check = self.check(seen)
        if check is None or check.outcome == RampOutcome.WAIT:
            return None
        with write_session(self.engine) as session:
            row = session.get(Rollout, seen.task_type, with_for_update=True)
            if row is None or _key(row) != _key(seen):
                return None  # another replica (or a person) acted since we looked
            config = ramp_config(row)
            session.add(apply_check(row, check, self.clock(), config.on_fail))
            session.add(row)
            session.commit()
            session.refresh(row)
            return row

    def command(self, task_type: str, action: str, actor: str, reason: str | None = None) -> Rollout:
        """start | pause | resume | abort, by a person; audited; Conflict when it does not apply."""
        with write_session(self.engine) as session:
            row = session.get(Rollout, task_type, with_for_update=True)
            if row is None:
                raise NotFound(f"no rollout for task type {task_type!r}", param="task")
            session.add(apply_command(row, action, actor, reason, self.clock()))
            session.add(row)
            session.commit()
            session.refresh(row)
            return row


def ramp_statuses(ramps: RampStore, rows: list[Rollout]) -> dict[str, dict[str, Any] | None]:
    """task type → its ramp as the report shows it (None: never ramped)."""
    return {row.task_type: ramps.status(row) for row in rows}


def _count(condition: ColumnElement[bool]) -> ColumnElement[int]:
    return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)


def _key(row: Rollout) -> tuple[object, ...]:
    """What a move was judged on: if any of it changed, the judgement is stale."""
    return (row.ramp_state, as_utc(row.ramp_since), row.mode, row.percent, row.breaker_state)
