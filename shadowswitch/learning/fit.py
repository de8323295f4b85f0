"""Judge an engine state on stored pairs, and fit its vote weight and threshold to a target.

A pair is an exemplar: the upstream's choice (`label`), the engine's zero-shot probabilities
for the same request, and whether the engine's arguments for the tool it filled agreed. A state
(exemplars, weight, threshold) decides each pair again without running the models: the vote of its
exemplars mixed into the zero-shot probabilities, its confidence scaled by how often the engine's
whole call agreed for the closest exemplars of the chosen tool (`memory.call_rate`). The arguments
of a tool the engine did not fill at the time are not known; they count at the task type's observed
argument agreement (smoothed), so the figures are an estimate the canary's measured agreement later
confirms.
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from shadowswitch.engines.local.conversation import repeats
from shadowswitch.engines.local.learned_state import Unreliable, pointer_of
from shadowswitch.learning.agreement import call_agreed
from shadowswitch.learning.deferral import Deferral, cross_probabilities, features
from shadowswitch.learning.deferral import train as train_deferral
from shadowswitch.learning.head import Head, train
from shadowswitch.learning.memory import (
    FLOOR,
    alike,
    call_rate,
    combine,
    tallies,
    tool_prior,
    turn_key,
    vote,
)
from shadowswitch.learning.origins import vetoed
from shadowswitch.learning.phrasings import cross_predict
from shadowswitch.learning.rules import calls_of, learned_rules
from shadowswitch.learning.values import pointed_call

NO_TOOL = "__no_tool__"
WEIGHTS = (0.0, 0.5, 0.8, 0.95)  # 0.0: the zero-shot ranking alone
YIELD_EVERY = 16  # pairs decided between two offers of the GIL (about 2 ms of pure Python)
DEFERRAL_MIN = 30  # decisions before a deferral is fitted
HEAD_MIN = 30  # pairs before a head is trained at all
GRID = (*tuple(round(x, 2) for x in np.arange(0.0, 0.96, 0.05)), 0.97, 0.98, 0.99, 1.0)


@dataclass(frozen=True)
class Pair:
    id: int
    vector: np.ndarray[Any, Any]
    label: str
    zero_shot: dict[str, float]
    local_tool: str | None
    args_status: str  # agree | differ | absent | missing | unknown | none (exemplar.py)
    arguments: dict[str, Any] | None = None  # the upstream's, as the exemplar describes them
    blocked: frozenset[str] = frozenset()  # tools the engine would not serve here, by rule
    last_tool: str | None = None  # the request's state (`conversation.TurnState`): the head reads it
    last_error: bool = False
    step: int = 0
    turn: Mapping[str, Any] = field(default_factory=dict)  # the conversation's state (`conversation_state`)
    context: np.ndarray[Any, Any] | None = None  # the agent's last reply's vector (`head.Example`)
    opening: np.ndarray[Any, Any] | None = None  # the user's opening words' vector
    optional: Mapping[str, Any] | None = None  # its optional parameters set or not (`optional.py`)

    def call(self, constants: dict[str, dict[str, Any]], unreliable: Unreliable | None = None) -> float:
        """Did the engine's call of the upstream's tool agree: 1, 0, or nan (`agreement.call_agreed`)."""
        status, arguments, optional = self.args_status, self.arguments, self.optional
        return call_agreed(self.label, self.local_tool, status, arguments, constants, unreliable, optional)

    def vetoed(self, unreliable: Unreliable) -> bool:
        """The engine filled the upstream's tool with a value of an unreliable origin: it abstains."""
        if self.local_tool != self.label:
            return False
        return vetoed(self.arguments, unreliable.get(self.label)) is not None


@dataclass(frozen=True)
class Outcome:
    confidence: float
    margin: float
    correct: float  # expected agreement of the answer, 0..1
    blocked: bool  # a required value missing: never served, whatever the confidence
    features: tuple[float, ...] = ()  # what the deferral reads (`deferral.features`)
    chosen: str = ""  # the state's choice: what a miss was


@dataclass(frozen=True)
class Fitted:
    weight: float
    min_confidence: float
    agreement: float | None
    coverage: float
    head: Head | None = None  # the trained choice model the state starts from (None: zero-shot)
    deferral: Deferral | None = None  # the threshold applies to its probability (None: p × gate)


def args_rate(pairs: Sequence[Pair]) -> float:
    """A call's expected agreement before its tool's record says: the mean over the tools of their
    argument agreement (Jeffreys-smoothed: Laplace holds a small task type low for long). A tool's,
    not a call's: an untried tool is more like a typical tool than like the look-ups' calls."""
    judged: dict[str, list[int]] = {}
    for p in pairs:
        if p.args_status in ("agree", "differ"):
            judged.setdefault(p.label, []).append(p.args_status == "agree")
    if not judged:
        return 0.5
    return float(np.mean([(sum(v) + 0.5) / (len(v) + 1) for v in judged.values()]))


def codes(a: Sequence[Hashable], b: Sequence[Hashable]) -> tuple[np.ndarray, np.ndarray]:
    """The values of `a` and `b` as integers, equal where the values are: compared pair by pair
    as Python objects, 400 x 400 of them held the GIL for 2 s on a busy machine, stalling every
    request (numpy does not let go of it in an object comparison); integers it compares at once."""
    index: dict[Hashable, int] = {}
    return (
        np.array([index.setdefault(s, len(index)) for s in a], dtype=np.int64),
        np.array([index.setdefault(s, len(index)) for s in b], dtype=np.int64),
    )


def decide(
    pairs: Sequence[Pair],
    memory: Sequence[Pair],
    weight: float,
    rate: float,
    constants: dict[str, dict[str, Any]] | None = None,
    floor: float = FLOOR,
    probs: Sequence[Mapping[str, float]] | None = None,
    deferral: Deferral | None = None,
    unreliable: Unreliable | None = None,
) -> list[Outcome]:
    """Each pair decided by a state whose exemplars are `memory`; a pair never votes for itself
    (with `memory` the pairs themselves, that is leave-one-out). `probs`: per pair, the trained
    head's probabilities to start from instead of the zero-shot ones; `unreliable`: the state's
    unreliable value origins (`origins.py`), on which it abstains."""
    constants, unreliable = constants or {}, unreliable or {}
    if memory:
        sims = alike(pairs, memory)
        labels = np.array([m.label for m in memory], dtype=object)
        calls = np.array([m.call(constants, unreliable) for m in memory], dtype=np.float64)
        ids, other_ids = codes([p.id for p in pairs], [m.id for m in memory])
        sims[ids[:, None] == other_ids[None, :]] = -1.0
        keys = [turn_key(p.blocked, p.turn) for p in pairs], [turn_key(m.blocked, m.turn) for m in memory]
        turns, other_turns = codes(*keys)
        sims[turns[:, None] != other_turns[None, :]] = -1.0
        tally = tallies(labels, calls)
        own = {m.id: (m.label, c) for m, c in zip(memory, calls.tolist(), strict=True) if not np.isnan(c)}
    out = []
    for i, pair in enumerate(pairs):
        if i % YIELD_EVERY == YIELD_EVERY - 1:
            time.sleep(0)  # hand the GIL to a request waiting for it (learning runs beside them)
        start = dict(probs[i]) if probs is not None else pair.zero_shot
        if memory and weight > 0:
            dist, strength = vote(sims[i], labels, list(start), floor)
            start = combine(start, dist, weight * strength)
        ranked = sorted(start.values(), reverse=True)
        chosen = max(start, key=lambda c: start[c])
        margin = ranked[0] - (ranked[1] if len(ranked) > 1 else 0)
        gate = (
            call_rate(sims[i], labels, calls, chosen, _prior(tally, own, pair.id, chosen, rate), floor)
            if memory
            else 1.0
        )
        x = tuple(_features(pair, chosen, ranked[0], margin, gate))
        confidence = deferral.probability(x) if deferral else ranked[0] * gate
        outcome = _outcome(pair, chosen, confidence, margin, rate, constants, unreliable)
        out.append(replace(outcome, features=x, chosen=chosen))
    return out


def _prior(
    tally: Mapping[str, tuple[float, int]],
    own: Mapping[int, tuple[str, float]],
    pair: int,
    tool: str,
    rate: float,
) -> float:
    """The tool's `tool_prior` without the pair's own call (the pair never vouches for itself)."""
    agreed, judged = tally.get(tool, (0.0, 0))
    label, call = own.get(pair, ("", 0.0))
    if label == tool:
        agreed, judged = agreed - call, judged - 1
    return tool_prior(agreed, judged, rate)


def _features(pair: Pair, chosen: str, p: float, margin: float, gate: float) -> list[float]:
    zero_shot = pair.zero_shot
    top = max(zero_shot, key=lambda c: zero_shot[c])
    return features(
        p, margin, zero_shot.get(chosen, 0.0), chosen == top, gate, chosen == NO_TOOL, bool(pair.blocked)
    )


def _outcome(
    pair: Pair,
    chosen: str,
    confidence: float,
    margin: float,
    rate: float,
    constants: dict[str, dict[str, Any]],
    unreliable: Unreliable,
) -> Outcome:
    if repeats(chosen, pair.blocked, pair.turn):  # the engine abstains: it does not answer wrong
        return Outcome(confidence, margin, float(chosen == pair.label), True)
    if chosen != pair.label:
        return Outcome(confidence, margin, 0.0, False)
    if chosen == NO_TOOL:
        return Outcome(confidence, margin, 1.0, False)
    status, _ = pointed_call(pair.args_status, pair.arguments, pointer_of(constants), chosen)
    if chosen == pair.local_tool and status == "missing":
        return Outcome(confidence, margin, 0.0, True)
    if pair.vetoed(unreliable):  # a value of an unreliable origin: the engine abstains
        return Outcome(confidence, margin, 0.0, True)
    call = pair.call(constants, unreliable)
    return Outcome(confidence, margin, rate if np.isnan(call) else call, False)


def served(outcomes: Sequence[Outcome], threshold: float, min_margin: float = 0.0) -> list[bool]:
    return [not o.blocked and o.confidence >= threshold and o.margin >= min_margin for o in outcomes]


def at(outcomes: Sequence[Outcome], threshold: float, min_margin: float = 0.0) -> dict[str, Any]:
    """Agreement among the answers served at `threshold`, and the share served (coverage)."""
    flags = served(outcomes, threshold, min_margin)
    served_ = [o for o, f in zip(outcomes, flags, strict=True) if f]
    n = len(outcomes)
    agreement = sum(o.correct for o in served_) / len(served_) if served_ else None
    return {
        "threshold": threshold,
        "served": len(served_),
        "agreement": None if agreement is None else round(agreement, 4),
        "coverage": round(len(served_) / n, 4) if n else 0.0,
    }


def curve(outcomes: Sequence[Outcome]) -> list[dict[str, Any]]:
    """Coverage against agreement over the threshold grid: what justifies the threshold."""
    return [at(outcomes, t) for t in GRID]


def fit(pairs: Sequence[Pair], target: float, floor: float = FLOOR, head: bool = True) -> Fitted:
    """The starting ranking (the zero-shot one, or a head trained on the pairs: `head`), the
    weight and the loosest threshold whose agreement, each pair decided by all the others, meets
    `target`; among those, the one serving most. Leave-one-out for the vote; for the head, each
    pair is predicted by a head trained without its fold (`cross_predict`). None meets it: the
    threshold 1.0 serves nothing but what the memory is certain of."""
    rate = args_rate(pairs)
    constants, unreliable = learned_rules(*calls_of(pairs))
    best: tuple[tuple[float, float], Fitted, tuple[bool, list[Outcome] | None]] | None = None
    starts: list[tuple[Sequence[Mapping[str, float]] | None, bool]] = [(None, False)]
    if head and len(pairs) >= HEAD_MIN:
        starts.append((cross_predict(pairs), True))
    for probs, trained in starts:
        for weight in WEIGHTS:
            raw = decide(pairs, pairs, weight, rate, constants, floor, probs, unreliable=unreliable)
            for deferred, outcomes in ((False, raw), (True, cross_deferred(raw))):
                for threshold in GRID:
                    point = at(outcomes, threshold)
                    if point["agreement"] is not None and point["agreement"] >= target:
                        key = (point["coverage"], point["agreement"])
                        if best is None or key > best[0]:
                            found = Fitted(weight, threshold, point["agreement"], point["coverage"])
                            best = (key, found, (trained, raw if deferred else None))
                        break
    if best is None:
        return Fitted(WEIGHTS[-1], 1.0, None, 0.0)
    _, fitted, (trained, deferred_from) = best
    if deferred_from is not None:
        fitted = replace(fitted, deferral=train_deferral(*_calibration_set(deferred_from)))
    return replace(fitted, head=train(pairs)) if trained else fitted


def _calibration_set(outcomes: Sequence[Outcome]) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    kept = [o for o in outcomes if not o.blocked]
    return np.array([o.features for o in kept]), np.array([o.correct for o in kept])


def cross_deferred(outcomes: Sequence[Outcome]) -> list[Outcome]:
    """The outcomes with their confidence the deferral's probability, each from a deferral fitted
    without its fold (blocked ones are never served and keep theirs)."""
    X, y = _calibration_set(outcomes)
    if len(y) < DEFERRAL_MIN or len(set(y.tolist())) < 2:
        return list(outcomes)
    probs = iter(cross_probabilities(X, y).tolist())
    return [o if o.blocked else replace(o, confidence=next(probs)) for o in outcomes]
