"""The gate a policy with `certify: false` keeps: a challenger is promoted when it is better than
the served state by a utility that makes serving worth it only at the target agreement.

A served answer that agrees is +1, one that does not is −target/(1−target), abstaining 0: a
challenger that serves more of what agrees gains, one that serves a wrong answer loses far more.
It is promoted when a betting test on the paired utility differences, in time order, finds their
mean above zero (`sequential.betting_wealth` reaching 1/α: valid however often learning looks
again), and its held-out agreement is not plainly below the target (the upper end of its
anytime-valid confidence sequence).
"""

from __future__ import annotations

from typing import Any

from shadowswitch.analysis.sequential import ALPHA, betting_wealth, confidence_sequence
from shadowswitch.learning.fit import Outcome


def utility(outcome: Outcome, serves: bool, target: float) -> float:
    if not serves:
        return 0.0
    return outcome.correct - (target / (1 - target)) * (1 - outcome.correct)


def compare(
    challenger: tuple[list[Outcome], list[bool]],
    current: tuple[list[Outcome], list[bool]],
    target: float,
) -> dict[str, Any]:
    """The challenger against the served state on the held-out pairs, and whether it is better."""
    penalty = target / (1 - target)
    diffs = [
        utility(c, cs, target) - utility(s, ss, target)
        for c, cs, s, ss in zip(*challenger, *current, strict=True)
    ]
    wins, losses = sum(d > 1e-9 for d in diffs), sum(d < -1e-9 for d in diffs)
    wealth = betting_wealth([d / (1 + penalty) for d in diffs])  # scaled into [−1, 1]
    both = {"challenger": figures(*challenger), "served": figures(*current)}
    kept = both["challenger"]
    hits = round((kept["agreement"] or 0.0) * kept["served"])
    high = confidence_sequence(hits, kept["served"])[1]
    reasons = []
    if wealth < 1 / ALPHA:
        reasons.append(
            f"no evidence it is better: utility {sum(diffs):+.1f} over {len(diffs)} pairs "
            f"({wins} wins, {losses} losses), betting wealth {wealth:.2f} < {1 / ALPHA:.0f}"
        )
    if high < target:
        reasons.append(f"held-out agreement {kept['agreement']:.3f} plainly below {target} (≤ {high:.3f})")
    return {
        "wins": wins,
        "losses": losses,
        "utility": round(sum(diffs), 2),
        "wealth": round(wealth, 3),
        "agreement_ci_high": round(high, 4),
        **both,
        "promote": not reasons,
        "why_not": "; ".join(reasons) or None,
    }


def figures(outcomes: list[Outcome], flags: list[bool]) -> dict[str, Any]:
    kept = [o for o, f in zip(outcomes, flags, strict=True) if f]
    agreement = sum(o.correct for o in kept) / len(kept) if kept else None
    return {
        "served": len(kept),
        "pairs": len(outcomes),
        "agreement": None if agreement is None else round(agreement, 4),
        "coverage": round(len(kept) / len(outcomes), 4) if outcomes else 0.0,
    }
