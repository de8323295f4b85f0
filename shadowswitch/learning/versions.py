"""Per served version of a task type's learned state: when it was promoted, what it learned from,
how it did on held-out pairs at promotion, and how the decisions made under it did since.

Live figures come from the decision records (`decision.state_version`): `coverage` is the share
of the local engine's decisions under that version that it answered (in shadow too), `agreement`
the share of those compared with the upstream's answer that agreed on the whole call.
"""

from __future__ import annotations

from typing import Any

from shadowswitch.store.exemplars import ExemplarStore
from shadowswitch.store.tables import EngineState, RegionCertificate

SHOWN = ("threshold", "coverage", "lower_bound", "pairs", "served", "more_pairs", "next_threshold")


def live(counts: dict[str, int] | None) -> dict[str, Any]:
    n = counts or {"decisions": 0, "answered": 0, "compared": 0, "agreed": 0}
    return {
        **n,
        "coverage": round(n["answered"] / n["decisions"], 4) if n["decisions"] else None,
        "agreement": round(n["agreed"] / n["compared"], 4) if n["compared"] else None,
    }


def held_out(state: EngineState) -> dict[str, Any] | None:
    """The challenger's figures on the held-out pairs that promoted it."""
    evaluation = (state.figures or {}).get("evaluation") or {}
    judged = evaluation.get("challenger")
    if not judged:
        return None
    return {key: judged.get(key) for key in ("pairs", "agreement", "coverage")}


def certificate_json(row: RegionCertificate | None) -> dict[str, Any] | None:
    """A version's newest certificate: its region, the lower bound of its agreement, the pairs it
    rests on, and the pairs still needed at the current miss rate for the next step."""
    if row is None:
        return None
    figures = row.figures or {}
    shown = {key: figures.get(key) for key in SHOWN}
    return {**shown, "status": row.status, "threshold": row.threshold, "at": row.created_at.isoformat()}


def certificate_text(certificate: dict[str, Any] | None) -> str:
    """One line of a version's certificate, as `learn status`, the report and the dashboard say it."""
    if certificate is None:
        return "not certified yet"
    status, more = certificate["status"], certificate.get("more_pairs")
    step = f"{more} more pairs at the current miss rate to certify ≥ {certificate.get('next_threshold')}"
    nxt = f"; {step}" if more is not None else ""
    if status == "certified":
        return (
            f"certified ≥ {certificate['threshold']}: coverage {100 * (certificate['coverage'] or 0):.0f}%, "
            f"agreement ≥ {certificate['lower_bound']} on {certificate['pairs']} pairs{nxt}"
        )
    if status == "withdrawn":
        return "withdrawn: its agreement was shown below the target"
    return f"uncertified on {certificate.get('pairs')} pairs" + (f"; {step}" if more is not None else "")


def state_json(state: EngineState, counts: dict[str, int] | None) -> dict[str, Any]:
    figures = state.figures or {}
    return {
        "version": state.version,
        "status": state.status,
        "created_at": state.created_at.isoformat(),
        "exemplar_max_id": state.exemplar_max_id,
        "memory_weight": state.memory_weight,
        "min_confidence": state.min_confidence,
        "head_sha256": state.head_sha256,
        "learned_from": figures.get("learned_from"),
        "held_out": held_out(state),
        "live": live(counts),
    }


def versions(store: ExemplarStore, task: str) -> dict[str, Any]:
    """Every version, oldest first, and the live figures of decisions made under none (`prior`),
    each with its newest certificate; `certificate`: the one in force."""
    counts = store.live_by_version(task)
    history = store.certificates.history(task)
    newest = {row.version: certificate_json(row) for row in history}
    in_force = history[-1] if history else None
    return {
        "versions": [
            {**state_json(s, counts.get(s.version)), "certificate": newest.get(s.version)}
            for s in store.states(task)
        ],
        "prior": {**live(counts.get(0)), "certificate": newest.get(0)},
        "certificate": {**(certificate_json(in_force) or {}), "version": in_force.version}
        if in_force
        else None,
    }
