"""Promotion on certificates: a challenger replaces the served state when its certified region,
on the same held-out pairs, serves more than the served state's. Both regions are certified at the
target, so serving more is a pure gain: no paired utility test is needed."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from shadowswitch.learning import regions
from shadowswitch.learning.certificate import Certificate
from shadowswitch.learning.fit import Outcome, Pair
from shadowswitch.learning.regions import certificate_of, describe, serves
from shadowswitch.store.exemplars import ExemplarStore
from shadowswitch.store.tables import Exemplar

ENOUGH = 1000  # the newest pairs the served state is certified on at most


def fresh_for(pairs: Sequence[Pair], learned_to: int, since: int) -> list[Pair]:
    """The pairs a state that learned up to `learned_to` may be certified on (the newest)."""
    return [p for p in pairs if p.id > max(learned_to, since)][-ENOUGH:]


def standing(
    store: ExemplarStore,
    task: str,
    state: tuple[int, int],
    decide: Callable[[Sequence[Pair]], list[Outcome]],
    floor: tuple[float, float],
    pairs: Sequence[Pair],
    target: float,
    actor: str | None,
) -> tuple[Certificate, dict[int, Outcome], float | None, int]:
    """The served state's (`state`: its version, and the newest pair it learned from) certificate
    on the pairs it did not learn from, recorded when it grants a first or wider region (`actor`;
    None: a dry run records nothing); its decisions of them by id (`decide`), the threshold in
    force, and the pair after which certifying may start (a withdrawal's). `floor`: the engine's
    own confidence and margin below which it never serves (the prior's policy thresholds)."""
    version, learned_to = state
    row = store.certificates.current(task)
    since = regions.since_pair(row)
    fresh = fresh_for(pairs, learned_to, since)
    outcomes = decide(fresh)
    cert = certificate_of(outcomes, target, *floor)
    if actor is not None:
        row = regions.keep_served(store, task, version, cert, actor) or row
    by_id = {p.id: o for p, o in zip(fresh, outcomes, strict=True)}
    return cert, by_id, regions.in_force(row, version), since


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


SHOWN = 10  # misses a run lists
MISS = 0.5  # expected agreement under which an answer is a miss (a call whose values were never
# judged counts at the task type's rate, 0.99 say: it costs the region little and is no miss)


def holding_back(
    outcomes: Sequence[Outcome],
    ids: Sequence[int],
    since: int,
    cert: Certificate,
    stored: Mapping[int, Exemplar],
) -> dict[str, Any]:
    """The held-out misses (of the pairs after `since`) at the threshold the certificate's sequence
    stopped at: how many (`missed`) and the newest `SHOWN`, each with its decision and both
    choices: what keeps a wider region (or any) from being certified, for an operator to open;
    and in how many of the held-out pairs' tool sets (agents) the misses are: one agent of many
    answering alike requests both ways holds every agent of the task type back."""
    step = cert.next_step
    bar = step.threshold if step is not None else float("inf")  # none: every threshold certified
    found = [
        (i, o)
        for o, i in zip(outcomes, ids, strict=True)
        if i > since and not o.blocked and o.confidence >= bar and o.correct < MISS
    ]
    tool_sets = {
        "misses": len({stored[i].tools_key for i, _ in found}),
        "held_out": len({stored[i].tools_key for i in ids if i > since}),
    }
    misses = [
        {
            "pair": i,
            "decision_id": stored[i].decision_id,
            "upstream": stored[i].label,
            "chosen": o.chosen,
            "confidence": round(o.confidence, 3),
            "agreement": round(o.correct, 3),
            **({"values": differed(stored[i].arguments)} if o.chosen == stored[i].label else {}),
        }
        for i, o in found[::-1][:SHOWN]
    ]
    return {"missed": len(found), "misses": misses, "tool_sets": tool_sets}


def differed(arguments: Mapping[str, Any] | None) -> list[str]:
    """The parameters of a call of the upstream's own tool that kept it from agreeing: a value
    the engine wrote otherwise, or left out (`exemplar._arguments`); none known: []."""
    return sorted(
        name
        for name, entry in (arguments or {}).items()
        if isinstance(entry, Mapping) and (entry.get("agrees") is False or entry.get("local") is False)
    )
