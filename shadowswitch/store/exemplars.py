"""Exemplars and learned engine states: synchronous queries, called from worker threads."""

from __future__ import annotations

import builtins
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, case, delete, func, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from shadowswitch.store.certificates import CertificateStore
from shadowswitch.store.tables import AuditEvent, Decision, EngineState, Exemplar, utcnow

SERVED = "served"
ROLLED_BACK = "rolled_back"
JUDGED = ("learn_promote", "learn_reject", "learn_rollback")  # audit kinds of learning runs


class ExemplarStore:
    def __init__(self, engine: Engine, cap: int = 10_000):
        self.engine = engine
        self.cap = cap  # per task type: beyond it the oldest are evicted
        self.certificates = CertificateStore(engine)  # the served states' certified regions

    def add(self, row: Exemplar) -> None:
        """Store one exemplar and evict its task type's oldest beyond the cap. A decision already
        judged failed (the agent's next request came back with the tool's error before this
        pair's shadow run was done) stores its exemplar excluded, as `exclude` would have."""
        with Session(self.engine) as session:
            failed = session.exec(select(Decision.success).where(Decision.id == row.decision_id)).first()
            row.excluded = row.excluded or failed is False
            session.add(row)
            session.flush()
            cutoff = session.exec(
                select(Exemplar.id)
                .where(Exemplar.task_type == row.task_type)
                .order_by(col(Exemplar.id).desc())
                .offset(self.cap)
                .limit(1)
            ).first()
            if cutoff is not None:
                session.execute(
                    delete(Exemplar).where(
                        col(Exemplar.task_type) == row.task_type, col(Exemplar.id) <= cutoff
                    )
                )
            session.commit()

    def exclude(self, decision_id: str) -> int:
        """Negative feedback on a decision: its exemplar no longer teaches anything."""
        with Session(self.engine) as session:
            result = session.execute(
                update(Exemplar).where(col(Exemplar.decision_id) == decision_id).values(excluded=True)
            )
            session.commit()
            return int(getattr(result, "rowcount", 0) or 0)

    def load(self, task_type: str, encoder: str, max_id: int | None = None) -> builtins.list[Exemplar]:
        """The task type's usable exemplars for `encoder`, oldest first (up to `max_id`)."""
        with Session(self.engine) as session:
            query = select(Exemplar).where(
                Exemplar.task_type == task_type,
                Exemplar.encoder == encoder,
                col(Exemplar.excluded).is_(False),
            )
            if max_id is not None:
                query = query.where(col(Exemplar.id) <= max_id)
            return list(session.exec(query.order_by(col(Exemplar.id))).all())

    def newest_encoder(self, task_type: str) -> str | None:
        with Session(self.engine) as session:
            return session.exec(
                select(Exemplar.encoder)
                .where(Exemplar.task_type == task_type)
                .order_by(col(Exemplar.id).desc())
                .limit(1)
            ).first()

    def count(self, task_type: str) -> dict[str, int]:
        with Session(self.engine) as session:
            rows = session.exec(
                select(Exemplar.excluded, func.count())
                .where(Exemplar.task_type == task_type)
                .group_by(col(Exemplar.excluded))
            ).all()
        found = {bool(excluded): int(n) for excluded, n in rows}
        return {"usable": found.get(False, 0), "excluded": found.get(True, 0)}

    def new_since_judged(self, task_type: str) -> int:
        """Usable pairs stored since the task type's last judged run or rollback, by anyone (every
        replica and the CLI record those as audit events): what says a new run is worth it."""
        with Session(self.engine) as session:
            last = session.exec(
                select(func.max(AuditEvent.at)).where(
                    AuditEvent.task_type == task_type, col(AuditEvent.kind).in_(JUDGED)
                )
            ).one()
            query = select(func.count()).where(
                Exemplar.task_type == task_type, col(Exemplar.excluded).is_(False)
            )
            if last is not None:
                query = query.where(col(Exemplar.created_at) > last)
            return int(session.exec(query).one())

    def prune(self, before: datetime) -> int:
        with Session(self.engine) as session:
            result = session.execute(delete(Exemplar).where(col(Exemplar.created_at) < before))
            session.commit()
            return int(getattr(result, "rowcount", 0) or 0)

    # -- engine states -------------------------------------------------------------------

    def served(self, task_type: str) -> EngineState | None:
        with Session(self.engine) as session:
            return session.exec(
                select(EngineState)
                .where(EngineState.task_type == task_type, EngineState.status == SERVED)
                .order_by(col(EngineState.version).desc())
                .limit(1)
            ).first()

    def served_versions(self) -> dict[str, int]:
        """task type → its served version (one small query: what every replica polls)."""
        with Session(self.engine) as session:
            rows = session.exec(
                select(EngineState.task_type, func.max(EngineState.version))
                .where(EngineState.status == SERVED)
                .group_by(col(EngineState.task_type))
            ).all()
        return {task: int(version) for task, version in rows}

    def states(self, task_type: str) -> builtins.list[EngineState]:
        with Session(self.engine) as session:
            query = select(EngineState).where(EngineState.task_type == task_type)
            return list(session.exec(query.order_by(col(EngineState.version))).all())

    def promote(self, state: EngineState, event: AuditEvent) -> EngineState:
        """Serve `state` as the next version, with its audit event, in one transaction (a
        replica promoting the same version at the same moment fails on the unique key)."""
        with Session(self.engine, expire_on_commit=False) as session:
            top = session.exec(
                select(func.max(EngineState.version)).where(EngineState.task_type == state.task_type)
            ).one()
            state.version = int(top or 0) + 1
            state.status = SERVED
            session.add(state)
            session.add(event)
            session.commit()
            return state

    def rollback(self, task_type: str, event: AuditEvent) -> EngineState | None:
        """Stop serving the current state; the one before it (or the prior) serves again."""
        with Session(self.engine, expire_on_commit=False) as session:
            current = session.exec(
                select(EngineState)
                .where(EngineState.task_type == task_type, EngineState.status == SERVED)
                .order_by(col(EngineState.version).desc())
                .limit(1)
            ).first()
            if current is None:
                return None
            current.status = ROLLED_BACK
            session.add(current)
            session.add(event)
            session.commit()
            return current

    def live_by_version(self, task_type: str) -> dict[int, dict[str, int]]:
        """Per state version, the task type's decisions the local engine made under it: how many,
        how many it answered (did not abstain), and of those compared with the upstream's, how
        many agreed on the whole call."""
        answered = col(Decision.abstain_reason).is_(None)
        compared = answered & col(Decision.agreement).is_not(None)
        with Session(self.engine) as session:
            rows = session.execute(  # five columns: sqlmodel's `select` types at most four
                sa_select(
                    col(Decision.state_version),
                    func.count(),
                    func.sum(case((answered, 1), else_=0)),
                    func.sum(case((compared, 1), else_=0)),
                    func.sum(case((compared & col(Decision.agreement).is_(True), 1), else_=0)),
                )
                .where(col(Decision.task_type) == task_type, col(Decision.state_version).is_not(None))
                .group_by(col(Decision.state_version))
            ).all()
        keys = ("decisions", "answered", "compared", "agreed")
        return {int(v or 0): {k: int(n or 0) for k, n in zip(keys, c, strict=True)} for v, *c in rows}

    def audit(self, event: AuditEvent) -> None:
        with Session(self.engine) as session:
            session.add(event)
            session.commit()


def learning_event(
    task_type: str, actor: str, kind: str, reason: str, figures: dict[str, Any] | None = None
) -> AuditEvent:
    """An audit record of learning (promote, reject, rollback), its figures also in `reason`."""
    return AuditEvent(
        at=utcnow(), task_type=task_type, actor=actor, kind=kind, reason=reason, figures=figures
    )
