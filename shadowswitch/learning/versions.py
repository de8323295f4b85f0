"""Per served version of a task type's learned state: when it was promoted, what it learned from,
how it did on held-out pairs at promotion, and how the decisions made under it did since.

Live figures come from the decision records (`decision.state_version`): `coverage` is the share
of the local engine's decisions under that version that it answered (in shadow too), `agreement`
the share of those compared with the upstream's answer that agreed on the whole call.
"""

from __future__ import annotations

from typing import Any

from shadowswitch.store.exemplars import ExemplarStore
from shadowswitch.store.tables import EngineState


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
    """Every version, oldest first, and the live figures of decisions made under none (`prior`)."""
    counts = store.live_by_version(task)
    return {
        "versions": [state_json(s, counts.get(s.version)) for s in store.states(task)],
        "prior": live(counts.get(0)),
    }
