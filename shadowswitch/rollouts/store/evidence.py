"""A ramp step's evidence: one aggregate query over the task type's decisions since the step began."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ColumnElement, Engine, and_, case, func, select, true
from sqlmodel import Session, col

from shadowswitch.analysis.verdict import Counts
from shadowswitch.rollouts.ramp import StepEvidence
from shadowswitch.store.tables import Decision, RegionCertificate


def step_evidence(engine: Engine, task_type: str, since: datetime, certifies: bool = False) -> StepEvidence:
    """Pairs, success and validity of the task type's decisions since `since` (read without a lock);
    where the policy certifies, the status of the served state's certificate too."""
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
    with Session(engine) as session:
        n = [int(v or 0) for v in session.execute(query).one()]
    return StepEvidence(
        agreement=Counts(n[1], n[0]),
        local_success=Counts(n[3], n[2]),
        generative_success=Counts(n[5], n[4]),
        local_valid=Counts(n[6] + n[8], n[6] + n[7]),
        certificate=certificate_status(engine, task_type) if certifies else None,
    )


def certificate_status(engine: Engine, task_type: str) -> str:
    """The status of the task type's certificate in force (`uncertified`: none yet)."""
    query = (
        select(col(RegionCertificate.status))
        .where(col(RegionCertificate.task_type) == task_type)
        .order_by(col(RegionCertificate.id).desc())
        .limit(1)
    )
    with Session(engine) as session:
        found = session.execute(query).scalar()
    return str(found or "uncertified")


def _count(condition: ColumnElement[bool]) -> ColumnElement[int]:
    return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)
