"""Rollout state and its audit log in the database, shared by every replica and the CLI."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from shadowswitch.errors import NotFound, Unprocessable
from shadowswitch.policy.models import Policy
from shadowswitch.store.tables import AuditEvent, Rollout, utcnow

MODES = ("off", "shadow", "canary")


class RolloutStore:
    """Synchronous; call from a worker thread on the request path."""

    def __init__(self, engine: Engine, clock: Callable[[], datetime] = utcnow):
        self.engine = engine
        self.clock = clock

    def sync_policies(self, policies: dict[str, Policy]) -> list[AuditEvent]:
        """Seed new task types from their policy; apply a changed policy `rollout` as an audited change."""
        events = []
        with Session(self.engine) as session:
            for task_type, policy in policies.items():
                wanted = (policy.rollout.mode, policy.rollout.percent)
                row = session.get(Rollout, task_type, with_for_update=True)
                if row is None:
                    row = Rollout(task_type=task_type, mode=wanted[0], percent=wanted[1])
                    events.append(self._event(row, "policy", "seed", None, None, "first start"))
                elif (row.policy_mode, row.policy_percent) != wanted:
                    old = (row.mode, row.percent)
                    row.mode, row.percent = wanted
                    reason = f"policy file changed rollout to {wanted[0]} {wanted[1]:g}%"
                    events.append(self._event(row, "policy", "policy", *old, reason))
                else:
                    continue
                row.policy_mode, row.policy_percent = wanted
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
        """A person's change: new mode and/or percent, audited."""
        if mode is not None and mode not in MODES:
            raise Unprocessable(f"mode must be one of {', '.join(MODES)}", param="mode")
        if percent is not None and not 0 <= percent <= 100:
            raise Unprocessable("percent must be between 0 and 100", param="percent")
        with Session(self.engine) as session:
            row = session.get(Rollout, task_type, with_for_update=True)
            if row is None:
                raise NotFound(f"no rollout for task type {task_type!r}", param="task")
            old = (row.mode, row.percent)
            if percent is not None and mode is None and row.mode == "off" and percent > 0:
                mode = "canary"  # asking for a share served locally means canary
            row.mode = mode if mode is not None else row.mode
            row.percent = percent if percent is not None else row.percent
            row.updated_at = self.clock()
            session.add(row)
            session.add(self._event(row, actor, "set", *old, reason))
            session.commit()
            session.refresh(row)
            return row

    def audit(self, task_type: str | None = None, limit: int = 20) -> list[AuditEvent]:
        with Session(self.engine) as session:
            query = select(AuditEvent).order_by(col(AuditEvent.id).desc()).limit(limit)
            if task_type:
                query = query.where(AuditEvent.task_type == task_type)
            return list(session.exec(query).all())

    def _event(
        self,
        row: Rollout,
        actor: str,
        kind: str,
        old_mode: str | None,
        old_percent: float | None,
        reason: str | None,
        decision_ids: list[str] | None = None,
    ) -> AuditEvent:
        return AuditEvent(
            at=self.clock(),
            task_type=row.task_type,
            actor=actor,
            kind=kind,
            old_mode=old_mode,
            old_percent=old_percent,
            new_mode=row.mode,
            new_percent=row.percent,
            reason=reason,
            decision_ids=decision_ids,
        )


def rollout_json(row: Rollout) -> dict[str, Any]:
    """The public shape of GET /v1/shadowswitch/rollouts."""
    return {
        "task_type": row.task_type,
        "mode": row.mode,
        "percent": row.percent,
        "breaker": {
            "state": row.breaker_state,
            "consecutive_failures": row.consecutive_failures,
            "tripped_at": row.tripped_at.isoformat() if row.tripped_at else None,
        },
        "updated_at": row.updated_at.isoformat() if row.updated_at else None,
    }


def audit_json(event: AuditEvent) -> dict[str, Any]:
    return {
        "at": event.at.isoformat(),
        "task_type": event.task_type,
        "actor": event.actor,
        "kind": event.kind,
        "old": {"mode": event.old_mode, "percent": event.old_percent},
        "new": {"mode": event.new_mode, "percent": event.new_percent},
        "reason": event.reason,
        "decision_ids": event.decision_ids or [],
    }
