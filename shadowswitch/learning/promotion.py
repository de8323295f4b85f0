"""Promotion on certificates: a challenger replaces the served state when its certified region,
on the same held-out pairs, serves more than the served state's. Both regions are certified at the
target, so serving more is a pure gain: no paired utility test is needed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shadowswitch.learning.certificate import Certificate
from shadowswitch.learning.fit import Outcome, Pair
from shadowswitch.learning.regions import certificate_of, describe, serves

ENOUGH = 1000  # the newest pairs the served state is certified on at most


def fresh_for(pairs: Sequence[Pair], learned_to: int, since: int) -> list[Pair]:
    """The pairs a state that learned up to `learned_to` may be certified on (the newest)."""
    return [p for p in pairs if p.id > max(learned_to, since)][-ENOUGH:]


def verdict(
    challenger: Sequence[Outcome],
    ids: Sequence[int],
    served: dict[int, Outcome],
    standing: Certificate,
    held: float | None,
    served_margin: float,
    since: int,
) -> tuple[Certificate, dict[str, Any]]:
    """The challenger's certificate on its cross-fitted decisions (`ids`, in time order), and
    whether its region serves more of the served state's held-out pairs (`served`) than the
    served state's region in force (`held`: its threshold, None: no region)."""
    kept = [o for o, i in zip(challenger, ids, strict=True) if i > since]
    cert = certificate_of(kept, standing.target)
    common = [j for j, i in enumerate(ids) if i in served]
    mine = serves([challenger[j] for j in common], cert.threshold)
    theirs = serves([served[ids[j]] for j in common], held, served_margin)
    reasons = []
    if cert.threshold is None:
        reasons.append(f"no certified region: {describe(0, cert).split(': ', 1)[1]}")
    elif mine <= theirs:
        reasons.append(
            f"its certified region serves {mine} of {len(common)} held-out pairs, "
            f"the served state's {theirs}: not more"
        )
    figures = {
        "challenger": {**cert.to_json(), "serves_held_out": mine},
        "served": {**standing.to_json(), "threshold_in_force": held, "serves_held_out": theirs},
        "held_out": len(common),
        "promote": not reasons,
        "why_not": "; ".join(reasons) or None,
    }
    return cert, figures
