"""Certified regions of the served states: the newest row of a task type is in force."""

from __future__ import annotations

from sqlalchemy import Engine, func
from sqlmodel import Session, col, select

from shadowswitch.store.tables import AuditEvent, Exemplar, RegionCertificate

CERTIFIED, UNCERTIFIED, WITHDRAWN = "certified", "uncertified", "withdrawn"


class CertificateStore:
    def __init__(self, engine: Engine):
        self.engine = engine

    def record(self, row: RegionCertificate, event: AuditEvent | None = None) -> RegionCertificate:
        """A new certificate (or a withdrawal) in force, with its audit event, in one transaction."""
        with Session(self.engine, expire_on_commit=False) as session:
            session.add(row)
            if event is not None:
                session.add(event)
            session.commit()
            return row

    def withdraw(self, row: RegionCertificate, event: AuditEvent) -> RegionCertificate:
        """Withdraw a certificate: only the exemplars stored from now on may certify again."""
        with Session(self.engine, expire_on_commit=False) as session:
            newest = session.exec(
                select(func.max(Exemplar.id)).where(Exemplar.task_type == row.task_type)
            ).one()
            row.status, row.since_pair = WITHDRAWN, int(newest or 0)
            session.add(row)
            session.add(event)
            session.commit()
            return row

    def current(self, task_type: str) -> RegionCertificate | None:
        with Session(self.engine) as session:
            return session.exec(
                select(RegionCertificate)
                .where(RegionCertificate.task_type == task_type)
                .order_by(col(RegionCertificate.id).desc())
                .limit(1)
            ).first()

    def in_force(self) -> dict[str, RegionCertificate]:
        """task type → its newest row (one small query: what every replica polls)."""
        with Session(self.engine) as session:
            newest = (
                select(func.max(RegionCertificate.id))
                .group_by(col(RegionCertificate.task_type))
                .scalar_subquery()
            )
            rows = session.exec(select(RegionCertificate).where(col(RegionCertificate.id).in_(newest))).all()
        return {row.task_type: row for row in rows}

    def history(self, task_type: str) -> list[RegionCertificate]:
        with Session(self.engine) as session:
            query = select(RegionCertificate).where(RegionCertificate.task_type == task_type)
            return list(session.exec(query.order_by(col(RegionCertificate.id))).all())
