"""The Rollout's repository: the one writer of the `rollout` rows and their audit events.

Every change locks the task type's row (SELECT ... FOR UPDATE on PostgreSQL, BEGIN IMMEDIATE on
SQLite), calls one method of the aggregate in `shadowswitch.rollouts.rollout` on what it read, and
writes the new state with its audit events in the same transaction. Replicas, the CLI and the API
change the same rows at the same time: no count is lost, and a trip, a re-probe, a restore or a
ramp step happens (and is audited) once.
"""

from __future__ import annotations

import builtins
import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from shadowswitch.errors import NotFound
from shadowswitch.policy.models import Breaker, Policy
from shadowswitch.rollouts.ramp import Check, StepEvidence
from shadowswitch.rollouts.ramp_status import ramp_json
from shadowswitch.rollouts.rollout import Changed, Event, Rollout
from shadowswitch.rollouts.store.evidence import step_evidence
from shadowswitch.rollouts.store.rows import aggregate, as_row, columns
from shadowswitch.states import BreakerTransition, Circuit, RampOutcome, RampState
from shadowswitch.store.tables import AuditEvent, utcnow
from shadowswitch.store.tables import Rollout as RolloutRow

Method = Callable[[Rollout, datetime], Changed]  # one of the aggregate's changes, the clock given
Key = tuple[object, ...]


@dataclass(frozen=True)
class Change:
    """A breaker transition that happened (and was audited) in this process."""

    task_type: str
    kind: str  # trip | reprobe | restore
    reason: str
    decision_ids: list[str]
    percent: float  # the rollout's own percent: what a restore returns to
    reprobe_wait_s: float | None


@dataclass(frozen=True)
class Written:
    """The row as committed, and the breaker's transition, when the step made one."""

    row: RolloutRow
    change: Change | None = None


@contextlib.contextmanager
def write_session(engine: Engine) -> Iterator[Session]:
    """A session whose transaction may read-modify-write rows that other processes write too.

    Callers read rows `with_for_update=True` (SELECT ... FOR UPDATE on PostgreSQL) and commit.
    SQLite has no row locks and pysqlite begins transactions lazily, so two processes could both
    read the old row; BEGIN IMMEDIATE takes the write lock first and makes them queue instead.
    """
    with Session(engine) as session:
        if engine.dialect.name == "sqlite":
            session.connection().exec_driver_sql("BEGIN IMMEDIATE")
        yield session


class RolloutRepository:
    """Synchronous; call from a worker thread on the request path."""

    def __init__(self, engine: Engine, clock: Callable[[], datetime] = utcnow):
        self.engine = engine
        self.clock = clock
        self.certifies: Callable[[str], bool] = lambda _task: False  # does a ramp step need a certificate?

    # -- reads ----------------------------------------------------------------------------------

    def list(self) -> list[RolloutRow]:
        with Session(self.engine) as session:
            return list(session.exec(select(RolloutRow).order_by(RolloutRow.task_type)).all())

    def get(self, task_type: str) -> RolloutRow:
        with Session(self.engine) as session:
            row = session.get(RolloutRow, task_type)
            if row is None:
                raise _unknown(task_type)
            return row

    def audit(self, task_type: str | None = None, limit: int = 20) -> builtins.list[AuditEvent]:
        with Session(self.engine) as session:
            query = select(AuditEvent).order_by(col(AuditEvent.id).desc()).limit(limit)
            if task_type:
                query = query.where(AuditEvent.task_type == task_type)
            return list(session.exec(query).all())

    def check(self, row: RolloutRow) -> Check | None:
        """What the controller makes of a running ramp's step now; None when it is not running."""
        state = aggregate(row)
        if state.ramp.state != RampState.RUNNING or state.ramp.since is None:
            return None
        return state.check(self._evidence(row.task_type, state.ramp.since), self.clock())

    def status(self, row: RolloutRow) -> dict[str, Any] | None:
        """The ramp's JSON with what a running one waits for (one aggregate query)."""
        return ramp_json(aggregate(row), self.check(row))

    def statuses(self, rows: builtins.list[RolloutRow]) -> dict[str, dict[str, Any] | None]:
        """task type → its ramp as the report shows it (None: never ramped)."""
        return {row.task_type: self.status(row) for row in rows}

    # -- changes --------------------------------------------------------------------------------

    def sync_policies(self, policies: dict[str, Policy]) -> builtins.list[AuditEvent]:
        """Seed new task types from their policy; apply a changed policy `rollout` as an audited change."""
        try:
            return self._sync(policies)
        except IntegrityError:  # another replica seeded the same task type at the same moment
            return self._sync(policies)

    def _sync(self, policies: dict[str, Policy]) -> builtins.list[AuditEvent]:
        events: builtins.list[AuditEvent] = []
        with write_session(self.engine) as session:
            for task_type, policy in policies.items():
                row = session.get(RolloutRow, task_type, with_for_update=True)
                now = self.clock()
                if row is None:
                    changed = Rollout.seed(task_type, policy.rollout, now)
                    row = as_row(changed.rollout)
                else:
                    changed = aggregate(row).sync(policy.rollout, now)
                if changed.events or changed.rollout != aggregate(row):
                    events += _write(session, row, changed)
            session.commit()
            for event in events:
                session.refresh(event)
        return events

    def set(
        self,
        task_type: str,
        *,
        actor: str,
        mode: str | None = None,
        percent: float | None = None,
        reason: str | None = None,
    ) -> RolloutRow:
        """A person's change: new mode and/or percent, audited; it also closes the breaker."""
        return _audited(self._change(task_type, lambda r, now: r.set(actor, now, mode, percent, reason)))

    def command(self, task_type: str, action: str, actor: str, reason: str | None = None) -> RolloutRow:
        """start | pause | resume | abort the ramp, by a person; audited; Conflict when it does not apply."""
        return _audited(self._change(task_type, lambda r, now: r.command(action, actor, now, reason)))

    def record(self, task_type: str, config: Breaker, decision_id: str, event: str) -> Written | None:
        """Count one local-path outcome on the breaker; None when it changed nothing."""
        return self._change(
            task_type, lambda r, now: r.record(config, decision_id, event, now), missing_ok=True
        )

    def reprobe(self, task_type: str, config: Breaker) -> Written | None:
        """Start re-probing when the wait is over (whichever replica comes first does it)."""
        return self._change(task_type, lambda r, now: r.reprobe(config, now), missing_ok=True)

    def tick(self, seen: RolloutRow) -> RolloutRow | None:
        """Judge a running ramp's step and move when the evidence says so; the committed row if moved.

        The evidence is read without a lock; only a move locks the row, and only when the row is
        still the one judged: of the replicas ticking the same step, the first moves, the others
        find the row changed and do nothing.
        """
        state = aggregate(seen)
        if state.breaker.state != Circuit.CLOSED or state.ramp.since is None:
            return None  # the breaker acts first; a trip aborts the ramp
        evidence = self._evidence(seen.task_type, state.ramp.since)
        check = state.check(evidence, self.clock())
        if check is None or check.outcome == RampOutcome.WAIT:
            return None
        judged = _key(seen)
        written = self._change(seen.task_type, lambda r, now: r.tick(evidence, now), True, judged)
        return written.row if written else None

    def _evidence(self, task_type: str, since: datetime) -> StepEvidence:
        return step_evidence(self.engine, task_type, since, self.certifies(task_type))

    def _change(
        self, task_type: str, method: Method, missing_ok: bool = False, judged: Key | None = None
    ) -> Written | None:
        """Lock the row, apply the aggregate's method, write the state and its events: one transaction.

        None when the method changed nothing, or the row is not the one `judged` (another replica
        or a person acted since); a missing row raises NotFound, or is None when `missing_ok`.
        """
        with write_session(self.engine) as session:
            row = session.get(RolloutRow, task_type, with_for_update=True)
            if row is None:
                if missing_ok:
                    return None
                raise _unknown(task_type)
            if judged is not None and _key(row) != judged:
                return None
            before = aggregate(row)
            changed = method(before, self.clock())
            if changed.rollout == before and not changed.events:
                return None
            _write(session, row, changed)
            session.commit()
            session.refresh(row)
            return Written(row, _transition(changed))


def audit_event(task_type: str, event: Event) -> AuditEvent:
    """The one place an audit event of a rollout is built."""
    return AuditEvent(
        at=event.at,
        task_type=task_type,
        actor=event.actor,
        kind=event.kind,
        old_mode=event.old[0],
        old_percent=event.old[1],
        new_mode=event.new[0],
        new_percent=event.new[1],
        reason=event.reason,
        decision_ids=list(event.decision_ids) or None,
        figures=event.figures,
    )


def _write(session: Session, row: RolloutRow, changed: Changed) -> builtins.list[AuditEvent]:
    """Stage the new state and its events in the session's transaction."""
    row.sqlmodel_update(columns(changed.rollout))
    events = [audit_event(row.task_type, event) for event in changed.events]
    session.add(row)
    session.add_all(events)
    return events


def _audited(written: Written | None) -> RolloutRow:
    """The row after a person's change (always audited, so always written)."""
    assert written is not None
    return written.row


def _transition(changed: Changed) -> Change | None:
    state = changed.rollout
    for event in changed.events:
        if event.kind in tuple(BreakerTransition):
            reason, ids = event.reason or "", list(event.decision_ids)
            return Change(
                state.task_type, event.kind, reason, ids, state.percent, state.breaker.reprobe_wait_s
            )
    return None


def _key(row: RolloutRow) -> Key:
    """What a ramp move was judged on: if any of it changed, the judgement is stale."""
    state = aggregate(row)
    return (state.ramp.state, state.ramp.since, state.mode, state.percent, state.breaker.state)


def _unknown(task_type: str) -> NotFound:
    return NotFound(f"no rollout for task type {task_type!r}", param="task")
