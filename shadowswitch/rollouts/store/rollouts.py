"""Rollout state and its audit log in the database, shared by every replica and the CLI."""

from __future__ import annotations

import builtins
import contextlib
from collections.abc import Callable, Iterator
from datetime import UTC, datetime

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from shadowswitch.errors import NotFound, Unprocessable
from shadowswitch.policy.models import Policy
from shadowswitch.rollouts.breaker import BreakerState, reset
from shadowswitch.rollouts.states import AuditKind, Circuit, RolloutMode
from shadowswitch.rollouts.store.ramp_state import pause_for_person, start_from_policy
from shadowswitch.store.tables import AuditEvent, Rollout, utcnow

MODES = tuple(RolloutMode)
Setting = tuple[str | None, float | None]  # (mode, percent) as the audit log shows it


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


class RolloutStore:
    """Synchronous; call from a worker thread on the request path."""

    def __init__(self, engine: Engine, clock: Callable[[], datetime] = utcnow):
        self.engine = engine
        self.clock = clock

    def sync_policies(self, policies: dict[str, Policy]) -> list[AuditEvent]:
        """Seed new task types from their policy; apply a changed policy `rollout` as an audited change."""
        try:
            return self._sync(policies)
        except IntegrityError:  # another replica seeded the same task type at the same moment
            return self._sync(policies)

    def _sync(self, policies: dict[str, Policy]) -> list[AuditEvent]:
        events = []
        with write_session(self.engine) as session:
            for task_type, policy in policies.items():
                wanted = (policy.rollout.mode, policy.rollout.percent)
                ramp = policy.rollout.ramp.model_dump() if policy.rollout.ramp else None
                row = session.get(Rollout, task_type, with_for_update=True)
                if row is None:
                    row = Rollout(task_type=task_type, mode=wanted[0], percent=wanted[1])
                    events.append(self._event(row, "policy", AuditKind.SEED, (None, None), "first start"))
                elif (row.policy_mode, row.policy_percent) != wanted:
                    old = (row.mode, row.percent)
                    row.mode, row.percent = wanted
                    reason = f"policy file changed rollout to {wanted[0]} {wanted[1]:g}%"
                    events.append(self._event(row, "policy", AuditKind.POLICY, old, _closing(row, reason)))
                    events += filter(None, [pause_for_person(row, "policy", self.clock())])
                elif row.policy_ramp == ramp:
                    continue
                row.policy_mode, row.policy_percent, row.policy_ramp = (*wanted, ramp)
                events += filter(None, [start_from_policy(row, self.clock())])
                row.updated_at = self.clock()
                session.add(row)
            session.add_all(events)
            session.commit()
            for event in events:
                session.refresh(event)
        return events

    def list(self) -> list[Rollout]:
        with Session(self.engine) as session:
            return list(session.exec(select(Rollout).order_by(Rollout.task_type)).all())

    def get(self, task_type: str) -> Rollout:
        with Session(self.engine) as session:
            row = session.get(Rollout, task_type)
            if row is None:
                raise NotFound(f"no rollout for task type {task_type!r}", param="task")
            return row

    def set(
        self,
        task_type: str,
        *,
        actor: str,
        mode: str | None = None,
        percent: float | None = None,
        reason: str | None = None,
    ) -> Rollout:
        """A person's change: new mode and/or percent, audited; it also closes the breaker."""
        _check(mode, percent)
        with write_session(self.engine) as session:
            row = session.get(Rollout, task_type, with_for_update=True)
            if row is None:
                raise NotFound(f"no rollout for task type {task_type!r}", param="task")
            old = (row.mode, row.percent)
            if percent is not None and mode is None and row.mode == RolloutMode.OFF and percent > 0:
                mode = RolloutMode.CANARY  # asking for a share served locally means canary
            row.mode = mode if mode is not None else row.mode
            row.percent = percent if percent is not None else row.percent
            row.updated_at = self.clock()
            session.add(self._event(row, actor, AuditKind.SET, old, _closing(row, reason)))
            paused = pause_for_person(row, actor, self.clock())  # a person's word wins over the ramp
            if paused:
                session.add(paused)
            session.add(row)
            session.commit()
            session.refresh(row)
            return row

    def audit(self, task_type: str | None = None, limit: int = 20) -> builtins.list[AuditEvent]:
        with Session(self.engine) as session:
            query = select(AuditEvent).order_by(col(AuditEvent.id).desc()).limit(limit)
            if task_type:
                query = query.where(AuditEvent.task_type == task_type)
            return list(session.exec(query).all())

    def _event(self, row: Rollout, actor: str, kind: str, old: Setting, reason: str | None) -> AuditEvent:
        return audit_event(row, self.clock(), actor, kind, old, (row.mode, row.percent), reason)


def _check(mode: str | None, percent: float | None) -> None:
    if mode is not None and mode not in MODES:
        raise Unprocessable(f"mode must be one of {', '.join(MODES)}", param="mode")
    if percent is not None and not 0 <= percent <= 100:  # also refuses NaN
        raise Unprocessable("percent must be between 0 and 100", param="percent")


def _closing(row: Rollout, reason: str | None) -> str | None:
    """Close the breaker (a person acted) and say so in the audit reason when it was not closed."""
    was = row.breaker_state
    write_breaker(row, reset())
    if was == Circuit.CLOSED:
        return reason
    note = f"closes the {was.replace('_', '-')} breaker"
    return f"{reason} ({note})" if reason else note


def audit_event(
    row: Rollout,
    at: datetime,
    actor: str,
    kind: str,
    old: Setting,
    new: Setting,
    reason: str | None,
    decision_ids: list[str] | None = None,
) -> AuditEvent:
    return AuditEvent(
        at=at,
        task_type=row.task_type,
        actor=actor,
        kind=kind,
        old_mode=old[0],
        old_percent=old[1],
        new_mode=new[0],
        new_percent=new[1],
        reason=reason,
        decision_ids=decision_ids,
    )


def read_breaker(row: Rollout) -> BreakerState:
    """The breaker part of a rollout row."""
    failures = tuple(
        (str(f["id"]), str(f.get("event", "")))
        for f in row.failure_ids or []
        if isinstance(f, dict) and "id" in f
    )
    return BreakerState(
        state=row.breaker_state,
        failures=failures,
        tripped_at=as_utc(row.tripped_at),
        reprobe_at=as_utc(row.reprobe_at),
        reprobe_wait_s=row.reprobe_wait_s,
        half_open_successes=row.half_open_successes,
    )


def write_breaker(row: Rollout, state: BreakerState) -> None:
    row.breaker_state = state.state
    row.consecutive_failures = len(state.failures)
    row.failure_ids = [{"id": i, "event": e} for i, e in state.failures] or None
    row.tripped_at = state.tripped_at
    row.reprobe_at = state.reprobe_at
    row.reprobe_wait_s = state.reprobe_wait_s
    row.half_open_successes = state.half_open_successes


def as_utc(value: datetime | None) -> datetime | None:
    """SQLite hands timezone-aware columns back naive; they were written in UTC."""
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=UTC)


def iso(value: datetime | None) -> str | None:
    value = as_utc(value)
    return value.isoformat() if value else None
