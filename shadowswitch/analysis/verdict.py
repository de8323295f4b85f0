"""One line per task type that a person can act on: raise the percentage, hold, or wait for data.

The verdict reads only anytime-valid bounds (`sequential.py`), so looking at it after every
request does not make a chance fluctuation look like evidence; no data is never a pass.
- worse: the local path agrees with the generative one less often than the target, or succeeds
  less often, beyond doubt;
- safe: agreement is at or above the target beyond doubt, and success is not worse;
- otherwise: not enough data, with about how many pairs would settle it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from shadowswitch.analysis.sequential import ALPHA, confidence_sequence, pairs_needed

Kind = Literal["safe", "worse", "better", "not_enough_data"]
STEPS = (5.0, 25.0, 50.0, 100.0)  # where "raise to" points next, as a ramp would step
TARGET_AGREEMENT = 0.95
HALF_WIDTH = 0.03  # "need ~N pairs for ±3%"


@dataclass(frozen=True)
class Counts:
    hits: int = 0
    total: int = 0

    @property
    def rate(self) -> float | None:
        return self.hits / self.total if self.total else None


@dataclass(frozen=True)
class Evidence:
    agreement: Counts  # pairs (both paths on one request) that chose the same call
    local_success: Counts  # judged local answers
    generative_success: Counts  # judged generative answers
    mode: str = "off"
    percent: float = 0.0


@dataclass(frozen=True)
class Verdict:
    kind: Kind
    text: str
    agreement_bounds: tuple[float, float] | None = None  # anytime-valid, for the dashboard

    def json(self) -> dict[str, Any]:
        bounds = self.agreement_bounds
        return {"kind": self.kind, "text": self.text, "agreement_cs": list(bounds) if bounds else None}


def success_comparison(local: Counts, generative: Counts, alpha: float = ALPHA) -> Kind | None:
    """ "worse"/"better" when the two success rates' sequences (α/2 each, so α in all) no longer
    overlap; None while they do."""
    if not local.total or not generative.total:
        return None
    low_l, high_l = confidence_sequence(local.hits, local.total, alpha / 2)
    low_g, high_g = confidence_sequence(generative.hits, generative.total, alpha / 2)
    if high_l < low_g:
        return "worse"
    if low_l > high_g:
        return "better"
    return None


def verdict_for(evidence: Evidence, target: float = TARGET_AGREEMENT) -> Verdict:
    pairs = evidence.agreement
    if not pairs.total:
        return Verdict("not_enough_data", "not enough data: no pairs yet (run it in shadow first)")
    bounds = confidence_sequence(pairs.hits, pairs.total)
    said = _agreement_text(pairs, bounds)
    success = success_comparison(evidence.local_success, evidence.generative_success)
    if bounds[1] < target:
        return Verdict("worse", f"{said}, below the {target:.0%} target — {_hold(evidence)}", bounds)
    if success == "worse":
        return Verdict("worse", f"{said}, but it succeeds less often — {_hold(evidence)}", bounds)
    if bounds[0] >= target:
        return Verdict("safe", f"{said} — {_raise(evidence)}", bounds)
    need = pairs_needed(max(pairs.rate or 0.0, target), HALF_WIDTH)
    return Verdict("not_enough_data", f"{said} — not enough data (need ~{need} for ±3%)", bounds)


def _agreement_text(pairs: Counts, bounds: tuple[float, float]) -> str:
    return (
        f"local agrees with generative on {pairs.rate:.1%} of {pairs.total} pairs "
        f"[{bounds[0]:.1%}–{bounds[1]:.1%}]"
    )


def _raise(evidence: Evidence) -> str:
    current = evidence.percent if evidence.mode == "canary" else 0.0
    following = next((s for s in STEPS if s > current), None)
    return f"safe to raise to {following:g}%" if following else "safe at 100%"


def _hold(evidence: Evidence) -> str:
    if evidence.mode == "canary" and evidence.percent:
        return f"hold at {evidence.percent:g}%"
    return "keep it generative"
