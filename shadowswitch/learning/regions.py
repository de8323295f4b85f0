"""Certified regions of a task type's states, on pairs they did not learn from.

The served state (the prior included) is certified on the pairs newer than what it learned from;
a challenger on its cross-fitted decisions (`challenger.cross_fitted`). Learning only widens the
served state's region or grants a first one: narrowing it is the monitor's (a withdrawal). After a
withdrawal only the pairs that came after it may certify: the upstream's behaviour has changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shadowswitch.learning.certificate import Certificate, Monitor, certify
from shadowswitch.learning.fit import Outcome
from shadowswitch.store.certificates import CERTIFIED, UNCERTIFIED, WITHDRAWN
from shadowswitch.store.exemplars import ExemplarStore, learning_event
from shadowswitch.store.tables import AuditEvent, RegionCertificate


def certificate_of(
    outcomes: Sequence[Outcome], target: float, min_confidence: float = 0.0, min_margin: float = 0.0
) -> Certificate:
    """The region of these decisions (in time order): what the engine would serve at a threshold is
    never a blocked one, nor one under the engine's own floor (`min_confidence`, `min_margin`)."""
    eligible = [not o.blocked and o.margin >= min_margin and o.confidence >= min_confidence for o in outcomes]
    confidences = [o.confidence for o in outcomes]
    return certify(confidences, [o.correct for o in outcomes], target, eligible=eligible)


def serves(outcomes: Sequence[Outcome], threshold: float | None, min_margin: float = 0.0) -> int:
    """How many of these decisions a region serves (none without a region)."""
    if threshold is None:
        return 0
    return sum(not o.blocked and o.margin >= min_margin and o.confidence >= threshold for o in outcomes)


def in_force(row: RegionCertificate | None, version: int) -> float | None:
    """The certified threshold of `version`, if its certificate is the one in force."""
    if row is None or row.version != version or row.status != CERTIFIED:
        return None
    return row.threshold


def since_pair(row: RegionCertificate | None) -> int:
    return row.since_pair if row is not None else 0


def keep_served(
    store: ExemplarStore, task: str, version: int, cert: Certificate, actor: str
) -> RegionCertificate | None:
    """Record the served state's certificate when it grants a first region or a wider one; the
    row in force otherwise stays (None: nothing recorded)."""
    current = store.certificates.current(task)
    held = in_force(current, version)
    if cert.threshold is None:
        if current is not None and current.version == version:
            return None  # uncertified, withdrawn or certified before: learning does not narrow
        status, threshold = UNCERTIFIED, None
    elif held is not None and cert.threshold >= held:
        return None
    else:
        status, threshold = CERTIFIED, cert.threshold
    row = _row(task, version, cert, since_pair(current), status)
    row.threshold = threshold
    event = None
    if status == CERTIFIED:
        reason = describe(version, cert)
        event = learning_event(task, actor, "learn_certify", reason, {"certificate": cert.to_json()})
    return store.certificates.record(row, event)


def record_promoted(
    store: ExemplarStore, task: str, version: int, cert: Certificate, since: int
) -> RegionCertificate:
    """The promoted state's certificate, in force from now on."""
    return store.certificates.record(_row(task, version, cert, since, CERTIFIED))


def _row(task: str, version: int, cert: Certificate, since: int, status: str) -> RegionCertificate:
    return RegionCertificate(
        task_type=task,
        version=version,
        status=status,
        threshold=cert.threshold,
        since_pair=since,
        figures=cert.to_json(),
    )


def describe(version: int, cert: Certificate) -> str:
    """One line: the region, its lower bound, the pairs it rests on."""
    data = cert.to_json()
    if cert.threshold is None:
        return f"version {version}: no certified region on {cert.pairs} pairs; {more_text(data)}"
    return (
        f"version {version}: confidence ≥ {cert.threshold} certified at {cert.target} "
        f"(lower bound {data['lower_bound']}), serving {data['served']} of {cert.pairs} held-out "
        f"pairs ({100 * data['coverage']:.0f}%)"
    )


def more_text(data: dict[str, Any]) -> str:
    more = data.get("more_pairs")
    if more is None:
        return "not at the current miss rate"
    return f"{more} more pairs at the current miss rate to certify ≥ {data.get('next_threshold')}"


def withdrawal(row: RegionCertificate, monitor: Monitor) -> tuple[RegionCertificate, AuditEvent]:
    """The row that withdraws `row`'s certificate, and its audit event (`learn_withdraw`)."""
    figures = {
        "version": row.version,
        "compared": monitor.compared,
        "agreed": monitor.agreed,
        "evidence": round(monitor.wealth, 2),
        "threshold": row.threshold,
    }
    reason = (
        f"version {row.version}: agreement shown below {monitor.target} by its monitor "
        f"({monitor.agreed:.0f} of {monitor.compared} compared answers agreed, "
        f"evidence {monitor.wealth:.1f} ≥ {1 / monitor.alpha:.0f})"
    )
    withdrawn = RegionCertificate(
        task_type=row.task_type,
        version=row.version,
        status=WITHDRAWN,
        threshold=None,
        figures={**(row.figures or {}), "withdrawn": figures},
    )
    return withdrawn, learning_event(row.task_type, "monitor", "learn_withdraw", reason, figures)
