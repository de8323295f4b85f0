"""Learn a task type's next engine state, and serve it only when the evidence says it is better.

With `engine.certify` (the default) every run certifies the served state on the pairs it did not
learn from, and the evidence is the certificates (`promotion.py`, `regions.py`): a challenger is
promoted when its certified region serves more of the same held-out pairs. A policy with
`certify: false` keeps the utility gate (`utility_gate.py`).

The pairs are split by time: the newest ones the served state has not learned from are held out
(at least `MIN_HOLDOUT`, a quarter of all); the challenger learns from everything before them
(fit.py), and both states decide the held-out pairs. While those are fewer than `ENOUGH`, earlier
blocks of as many pairs are held out in turn too, each decided by a challenger fitted on all the
other pairs (cross-fitting), so that a young task type has evidence enough to pass. Where the
policy tunes the encoder, each challenger reads the pairs with one tuned without its held-out
block (`tuning.py`). Every run that judged a challenger is an audit event with its figures and the
reasons it was not promoted; a promotion is a new version, and `rollback` serves the one before.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from shadowswitch.learning import fillers, promotion, regions, rules, tuning, utility_gate
from shadowswitch.learning.deferral import Deferral
from shadowswitch.learning.fit import Fitted, Outcome, Pair, args_rate, at, curve, decide, fit, served
from shadowswitch.learning.head import Head
from shadowswitch.learning.memory import floor_for
from shadowswitch.learning.tool_records import tool_records
from shadowswitch.learning.versions import versions
from shadowswitch.policy.models import Engine as EnginePolicy
from shadowswitch.store.exemplars import ExemplarStore, learning_event
from shadowswitch.store.tables import EngineState, Exemplar

MIN_PAIRS = 40  # below: the policy's thresholds (or the prior's) apply
MIN_HOLDOUT = 20
HOLDOUT_SHARE = 0.25
RECENT = 200  # pairs the status figures are computed on
MAX_HOLDOUT = 500  # held-out pairs judged at most (the newest)
ENOUGH = 1000  # held-out pairs judged at least, when there are that many (cross-fitting)
MAX_FIT = 2000  # pairs the weight and threshold are fitted on at most (leave-one-out is n²)
Progress = Callable[[str, float], None]  # step, share done


@dataclass(frozen=True)
class Spec:
    """How a state decides: its exemplars, vote weight and thresholds (version 0: the prior)."""

    version: int
    memory: list[Pair]
    weight: float
    min_confidence: float
    min_margin: float
    floor: float = 0.6  # the memory's similarity floor (its encoder's)
    head: Head | None = None  # the trained choice model it starts from (None: zero-shot)
    deferral: Deferral | None = None  # its threshold applies to the deferral's probability


def to_pair(row: Exemplar) -> Pair:
    vector = np.frombuffer(row.vector, dtype=np.float32)
    return Pair(
        row.id or 0,
        vector,
        row.label,
        dict(row.zero_shot or {}),
        row.local_tool,
        row.args_status,
        row.arguments,
        frozenset(row.blocked or ()),
        row.last_tool,
        bool(row.last_error),
        int(row.step or 0),
        dict(row.turn or {}),
        np.frombuffer(row.context, dtype=np.float32) if row.context else None,
        np.frombuffer(row.opening, dtype=np.float32) if row.opening else None,
        row.optional,
    )


def served_spec(state: EngineState | None, pairs: Sequence[Pair], policy: EnginePolicy) -> Spec:
    if state is None:
        return Spec(0, [], 0.0, policy.min_confidence, policy.min_margin)
    memory = [p for p in pairs if p.id <= state.exemplar_max_id]
    floor = floor_for(state.encoder)
    head = Head.from_bytes(state.head) if state.head else None
    deferral = Deferral.from_json(((state.figures or {}).get("fitted") or {}).get("deferral"))
    return Spec(state.version, memory, state.memory_weight, state.min_confidence, 0.0, floor, head, deferral)


def _decisions(spec: Spec, rate: float, pairs: Sequence[Pair]) -> list[Outcome]:
    return judge(spec, pairs, rate)[0] if pairs else []


def judge(spec: Spec, pairs: Sequence[Pair], rate: float) -> tuple[list[Outcome], list[bool]]:
    constants, unreliable = rules.learned_rules(*rules.calls_of(spec.memory))
    probs = spec.head.predict_many(pairs) if spec.head else None
    outcomes = decide(
        pairs, spec.memory, spec.weight, rate, constants, spec.floor, probs, spec.deferral, unreliable
    )
    return outcomes, served(outcomes, spec.min_confidence, spec.min_margin)


def learn(
    store: ExemplarStore,
    task: str,
    policy: EnginePolicy,
    actor: str,
    dry_run: bool = False,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """One learning run: certify the served state, fit a challenger, judge it, promote it or say
    why not."""
    step = progress or (lambda _s, _f: None)
    step("loading pairs", 0.0)
    rows = _usable(store, task)
    pairs = [to_pair(r) for r in rows]
    current = store.served(task)
    reading = tuning.tuning_for(rows)
    served_pairs = tuning.served_reader(current.tuned if current else None, reading)(pairs)
    spec = served_spec(current, served_pairs, policy)
    result: dict[str, Any] = {"task_type": task, "pairs": len(pairs), "served_version": spec.version}
    standing = (
        promotion.standing(
            store,
            task,
            (spec.version, current.exemplar_max_id if current else 0),
            partial(_decisions, spec, args_rate(pairs)),
            (spec.min_confidence, spec.min_margin) if spec.version == 0 else (0.0, 0.0),
            served_pairs,
            policy.target_agreement,
            None if dry_run else actor,
        )
        if policy.certify
        else None
    )
    if standing is not None:
        result["certificate"] = standing[0].to_json()
    fresh = [p for p in pairs if current is None or p.id > current.exemplar_max_id]
    holdout_n = holdout_size(len(pairs), len(fresh))
    if len(pairs) < MIN_PAIRS or holdout_n < MIN_HOLDOUT or len(pairs) - holdout_n < MIN_HOLDOUT:
        step("done", 1.0)
        need = max(MIN_PAIRS - len(pairs), MIN_HOLDOUT - len(fresh), 0)
        return {**result, "status": "not_enough_pairs", "why_not": f"{need} more new pairs needed"}
    train = pairs[:-holdout_n]
    tune = reading.tune if reading is not None and policy.tune_encoder and reading.enough(train) else None
    step("tuning the encoder" if tune else "fitting", 0.2)
    tuned = tune(train) if tune else None
    read = reading.reader(tuned) if reading is not None and tuned is not None else list
    step("fitting", 0.3)
    floor = floor_for(rows[0].encoder)
    fitted = fit(read(train)[-MAX_FIT:], policy.target_agreement, floor)
    step("judging", 0.5)
    judged = cross_fitted(
        pairs, holdout_n, (spec, served_pairs), (fitted, read), policy.target_agreement, floor, tune, reading
    )
    cert = None
    if standing is not None:
        ids = [p.id for p in pairs[len(pairs) - len(judged[0][0]) :]]
        margin = spec.min_margin if spec.version == 0 else 0.0
        cert, verdict = promotion.verdict(
            judged[0][0], ids, standing[1], standing[0], standing[2], margin, standing[3]
        )
        stored = {r.id or 0: r for r in rows}
        verdict["challenger"].update(promotion.holding_back(judged[0][0], ids, standing[3], cert, stored))
    else:
        verdict = utility_gate.compare(judged[0], judged[1], policy.target_agreement)
    verdict["cross_fitted"] = judged[2]
    result.update(
        status="promoted" if verdict["promote"] and not dry_run else "judged",
        fitted={
            "weight": fitted.weight,
            "min_confidence": cert.threshold if cert else fitted.min_confidence,
            "cv_agreement": fitted.agreement,
            "cv_coverage": fitted.coverage,
            "head_pairs": fitted.head.pairs if fitted.head else None,
            "deferral": fitted.deferral.to_json() if fitted.deferral else None,
            "encoder": tuning.figures(policy.tune_encoder, reading, tuned),
        },
        evaluation=verdict,
        constants_from=len(train),
        **rules.learned_report(*rules.calls_of(train)),
    )
    if not dry_run:
        step("recording", 0.9)
        packed = tuning.pack(tuned, read(train)) if tuned is not None else None
        _record(store, task, actor, rows, train, fitted, verdict, result, packed)
        if cert is not None and result.get("version") is not None and standing is not None:
            regions.record_promoted(store, task, result["version"], cert, standing[3])
    step("done", 1.0)
    return result


def holdout_size(pairs: int, fresh: int) -> int:
    """The newest pairs a run holds out: a quarter, at least `MIN_HOLDOUT`, at most `MAX_HOLDOUT`,
    and only pairs the served state has not learned from (`fresh`)."""
    return min(fresh, max(MIN_HOLDOUT, min(MAX_HOLDOUT, int(pairs * HOLDOUT_SHARE))))


Judged = tuple[list[Outcome], list[bool]]


def cross_fitted(
    pairs: Sequence[Pair],
    holdout_n: int,
    served_state: tuple[Spec, Sequence[Pair]],
    newest: tuple[Fitted, tuning.Read],
    target: float,
    floor: float,
    tune: Callable[[Sequence[Pair]], Any] | None = None,
    reading: tuning.Tuning | None = None,
) -> tuple[Judged, Judged, int]:
    """Both states' decisions of the held-out (newest) pairs and, while those are fewer than
    `ENOUGH`, of earlier blocks of the same size too, each decided by a challenger fitted on all
    the other pairs: a young task type gets four times the evidence without any pair judging the
    fit it was part of. In time order, with the number of blocks.

    `served_state`: the served state and the pairs as it reads them; `newest`: the challenger
    fitted on the pairs before the newest block and how it reads pairs; `tune`: the encoder is
    tuned, each earlier block read by one tuned on all the other pairs (`reading`'s)."""
    spec, served_pairs = served_state
    n = len(pairs)
    blocks = [(n - holdout_n, n)]
    while sum(b - a for a, b in blocks) < ENOUGH and blocks[0][0] > 0:
        blocks.insert(0, (max(0, blocks[0][0] - holdout_n), blocks[0][0]))
    challenger: Judged = ([], [])
    served: Judged = ([], [])
    for start, end in blocks:
        # The newest block: the challenger that would be promoted, fitted on the pairs before it.
        rest = list(pairs[:start]) if end == n else [*pairs[:start], *pairs[end:]]
        if end == n:
            fitted, read = newest
        else:
            tuned = tune(rest) if tune is not None else None
            read = reading.reader(tuned) if reading is not None and tuned is not None else list
            fitted = fit(read(rest)[-MAX_FIT:], target, floor)
        rate = args_rate(rest)
        state = Spec(
            spec.version + 1,
            read(rest),
            fitted.weight,
            fitted.min_confidence,
            0.0,
            floor,
            fitted.head,
            fitted.deferral,
        )
        block = read(pairs[start:end])
        for into, judged in (
            (challenger, judge(state, block, rate)),
            (served, judge(spec, served_pairs[start:end], rate)),
        ):
            into[0].extend(judged[0])
            into[1].extend(judged[1])
    return challenger, served, len(blocks)


def _usable(store: ExemplarStore, task: str) -> list[Exemplar]:
    """The exemplars of the newest encoder (a change of encoder starts learning afresh), but those
    that only put a call off (`fillers`)."""
    return fillers.kept(_loaded(store, task))


def _loaded(store: ExemplarStore, task: str) -> list[Exemplar]:
    newest = store.newest_encoder(task)
    return store.load(task, newest) if newest else []


def _record(
    store: ExemplarStore,
    task: str,
    actor: str,
    rows: list[Exemplar],
    train: list[Pair],
    fitted: Fitted,
    verdict: dict[str, Any],
    result: dict[str, Any],
    tuned: bytes | None = None,
) -> None:
    kept = ("pairs", "served_version", "fitted", "evaluation", "transforms", "rankings", "unreliable")
    figures = {k: result[k] for k in kept}
    figures["learned_from"] = len(train)
    if verdict["promote"]:
        head = fitted.head.to_bytes() if fitted.head else None
        state = EngineState(
            task_type=task,
            version=0,
            status="served",
            encoder=rows[0].encoder,
            exemplar_max_id=train[-1].id,
            memory_weight=fitted.weight,
            min_confidence=result["fitted"]["min_confidence"],
            figures=figures,
            head=head,
            head_sha256=hashlib.sha256(head).hexdigest() if head else None,
            tuned=tuned,
            tuned_sha256=hashlib.sha256(tuned).hexdigest() if tuned else None,
        )
        event = learning_event(task, actor, "learn_promote", json.dumps(figures), figures)
        result["version"] = store.promote(state, event).version
    else:
        store.audit(learning_event(task, actor, "learn_reject", json.dumps(figures), figures))


def rollback(store: ExemplarStore, task: str, actor: str) -> dict[str, Any]:
    current = store.served(task)
    if current is None:
        return {"task_type": task, "status": "nothing_to_roll_back", "served_version": 0}
    reason = f"rolled back version {current.version}"
    store.rollback(task, learning_event(task, actor, "learn_rollback", reason))
    after = store.served(task)
    return {
        "task_type": task,
        "status": "rolled_back",
        "from": current.version,
        "served_version": after.version if after else 0,
    }


def status(store: ExemplarStore, task: str, policy: EnginePolicy) -> dict[str, Any]:
    """Pairs collected, the served version, and its agreement, coverage and curve on recent pairs
    (each pair decided without its own exemplar)."""
    loaded = _loaded(store, task)
    rows = fillers.kept(loaded)
    current = store.served(task)
    tuned = (current.tuned, current.tuned_sha256) if current else (None, None)
    read = tuning.served_reader(tuned[0], tuning.tuning_for(rows), tuned[1])
    pairs = read([to_pair(r) for r in rows])
    spec = served_spec(current, pairs, policy)
    recent = pairs[-RECENT:]
    counts = store.count(task)
    out: dict[str, Any] = {
        "task_type": task,
        "pairs": counts["usable"],
        "excluded": counts["excluded"],
        "fillers": len(loaded) - len(rows),
        "served_version": spec.version,
        "thresholds": {
            "min_confidence": spec.min_confidence,
            "min_margin": spec.min_margin,
            "memory_weight": spec.weight,
            "source": "learned" if current else "policy",
        },
        "target_agreement": policy.target_agreement,
        "learn": policy.learn,
        "recent": {"pairs": len(recent), "agreement": None, "coverage": None},
        "curve": [],
        "tools": tool_records(spec.memory),
        **versions(store, task),
    }
    if recent:
        outcomes = judge(spec, recent, args_rate(pairs))[0]
        point = at(outcomes, spec.min_confidence, spec.min_margin)
        out["recent"] = {"pairs": len(recent), "agreement": point["agreement"], "coverage": point["coverage"]}
        out["curve"] = curve(outcomes)
    return out
