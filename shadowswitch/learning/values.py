"""Learned value rankings: which of the values the text offers a parameter the upstream takes.

The filler scores every value the text offers a text or number parameter with features and
weights fitted once on development data (`arguments/features.py`) and fills the best. An agent's
upstream has its own habits: the help desk's note is the clause after "Note on the ticket
please:", not the whole sentence; its account is the login the user typed, not the name beside
it. Each exemplar keeps, per argument of the upstream's call, the features of the values the text
offered the engine (`base`: the filler's score), which one the engine filled (`picked`) and which
one is the upstream's (`match`, -1 when none is) — never the values.

Per tool and parameter, a conditional logit over the offered values, with the filler's score as
its offset (with few pairs it *is* the filler's ranking), learns weights on the features: the
ranking (L2-regularised, fitted by L-BFGS). It is kept only when, each exemplar ranked by weights
fitted without its fold, it picks the upstream's value at least `GAIN` times more often than the
engine did. It adds no value: it re-orders those the text offers, which keep their provenance,
and a parameter with no value in the text is still missing.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy.optimize import minimize
from scipy.stats import beta

from shadowswitch.engines.local.arguments.recall import sure
from shadowswitch.engines.local.learned_state import POINTER, SURE, Pointer, Ranked, Weights

NO_TOOL = "__no_tool__"
MEMORY = "memory"  # the feature of the values the request's memory offered (`arguments/pointer.py`)
MIN = 5  # exemplars whose upstream value was offered, before a parameter's ranking is fitted
GAIN = 2  # more upstream values picked, cross-validated, than the engine picked
LAMBDA = 1.0  # L2 strength on the weights: toward the filler's own ranking
# ... on the pointer's: its examples are pooled over every tool and parameter (hundreds), and a walk's
# first id or a call's repeat must weigh enough to clear `recall.MARGIN` (the shop agent's held-out look-ups
# by order id: 20 of 55 filled right at 1.0, 51 at 0.1, none wrong; the 4 others are ids the
# upstream mistyped)
POINTER_LAMBDA = 0.1
FOLDS = 5
# A parameter's pointer is sure at a smaller margin than `MARGIN` where, cross-validated, its first
# offer at that margin was the upstream's value at least `SURE_BOUND` of the time (one-sided 95%
# lower bound): the shop agent's order ids, first for 34 of 36 at a margin of 1, sure at 2 for 6.
# The value is one part of a call: the call's certificate still judges every call it fills.
MARGINS = (0.25, 0.5, 1.0, 1.5)  # a tie is never sure
SURE_BOUND = 0.8
NEWEST = 200  # exemplars per parameter a ranking is fitted on, the newest


def offered(entry: Mapping[str, Any]) -> tuple[list[dict[str, float]], int, int] | None:
    """An exemplar argument's offered values' features, the engine's pick and the upstream's
    (`exemplar._arguments`), or None when it has none."""
    found = entry.get("offered")
    if not isinstance(found, Mapping) or not isinstance(found.get("features"), list):
        return None
    return list(found["features"]), int(found.get("picked", -1)), int(found.get("match", -1))


def pick(features: Sequence[Mapping[str, float]], weights: Mapping[str, float]) -> int:
    """The offered value the filler's score plus the ranking's weights puts first."""
    scores = [f.get("base", 0.0) + sum(weights.get(k, 0.0) * v for k, v in f.items()) for f in features]
    return int(np.argmax(scores))


def ranked_pick(features: Sequence[Mapping[str, float]], picked: int, weights: Mapping[str, float]) -> int:
    """What the engine fills once the ranking applies: its own pick where the ranking puts the
    same value first as the filler's score alone (the filler's choice also weighs the other
    parameters' values), else the ranking's first."""
    chosen = pick(features, weights)
    return picked if chosen == pick(features, {}) else chosen


def reranked(entry: Mapping[str, Any], weights: Mapping[str, float]) -> Mapping[str, Any]:
    """The exemplar's argument as the ranking would have filled it: unchanged where it picks what
    the engine picked; else it agrees when it picks the upstream's value (as read: no transform)."""
    found = offered(entry)
    if found is None or found[1] < 0:
        return entry
    features, picked, match = found
    chosen = ranked_pick(features, picked, weights)
    if chosen == picked:
        return entry
    out = {**entry, "transforms": ["identity"] if chosen == match else []}
    if "agrees" in entry:
        out["agrees"] = chosen == match
    return out


def fit_rankings(arguments: Sequence[tuple[str, Mapping[str, Any] | None]]) -> dict[str, dict[str, Weights]]:
    """tool → {param: weights} for the parameters whose ranking picks the upstream's value more
    often than the engine did, cross-validated."""
    seen: dict[tuple[str, str], list[tuple[list[dict[str, float]], int, int]]] = {}
    for tool, args in arguments:
        if tool == NO_TOOL:
            continue
        for param, entry in (args or {}).items():
            found = offered(entry) if isinstance(entry, Mapping) else None
            if found is not None and found[2] >= 0 and len(found[0]) >= 2 and not from_memory(found[0]):
                seen.setdefault((tool, param), []).append(found)
    out: dict[str, dict[str, Weights]] = {}
    for (tool, param), examples in sorted(seen.items()):
        examples = examples[-NEWEST:]
        if len(examples) < MIN or all(p == m for _, p, m in examples):
            continue  # too few, or the engine already picks the upstream's value every time
        if _cross_gain(examples) >= GAIN:
            out.setdefault(tool, {})[param] = fit(examples)
    return out


def from_memory(features: Sequence[Mapping[str, float]]) -> bool:
    """The offers came from the request's memory (`arguments/pointer.py`), not the filler's text."""
    return bool(features) and MEMORY in features[0]


def fit_pointer(arguments: Sequence[tuple[str, Mapping[str, Any] | None]]) -> dict[str, Ranked] | None:
    """The pointer's weights shared by every tool and parameter: a conditional logit over what the
    memory offered each argument, on features that say where a value is and how its key fits the
    parameter (`arguments/pointer.py`), not which tool asks; its prior's score is the offset. Kept
    when, cross-validated, it picks the upstream's value `GAIN` more times than the prior did;
    beside them (`SURE`), the margins per tool and parameter it is sure at (`MARGINS`)."""
    cases = []
    for tool, args in arguments:
        for param, entry in (args or {}).items() if tool != NO_TOOL else ():
            found = offered(entry) if isinstance(entry, Mapping) else None
            if found is not None and len(found[0]) >= 2 and from_memory(found[0]):
                cases.append((f"{tool}.{param}", found))
    cases = cases[-NEWEST * 5 :]
    examples = [found for _, found in cases if found[2] >= 0]
    if len(examples) < MIN or all(p == m for _, p, m in examples):
        return None
    gain, margins = _cross_pointer(cases)
    if gain < GAIN:
        return None
    sure = Ranked(tuple(sorted(margins.items())))
    return {POINTER: Ranked(tuple(sorted(fit(examples, POINTER_LAMBDA).items()))), SURE: sure}


def pointed(entry: Mapping[str, Any], pointer: Pointer, key: tuple[str, str]) -> Mapping[str, Any]:
    """An exemplar's argument (`key`: tool and parameter) as the learned pointer fills it at serving
    time: the memory's offer it scores first when that one is sure (`recall.sure`: the margin
    learned for the parameter, else at least `SERVE` and `MARGIN` ahead of the next), else none:
    the engine leaves the parameter missing and abstains. Unchanged where the pointer fills what
    the engine filled when the pair was recorded."""
    found = offered(entry)
    if found is None or not from_memory(found[0]):
        return entry
    features, picked, match = found
    scores = sorted(((_scored(f, pointer.weights), i) for i, f in enumerate(features)), reverse=True)
    chosen = scores[0][1] if sure([s for s, _ in scores[:2]], pointer.margin(*key)) else -1
    if chosen == picked:
        return entry
    out = {**entry, "local": chosen >= 0, "transforms": ["identity"] if chosen == match >= 0 else []}
    out["offered"] = {**entry["offered"], "picked": chosen}
    if "agrees" in entry:
        out["agrees"] = chosen >= 0 and chosen == match
    return out


def pointed_call(
    status: str, arguments: Mapping[str, Any] | None, pointer: Pointer | None, tool: str
) -> tuple[str, Mapping[str, Any] | None]:
    """A pair's argument status and arguments (of `tool`) once the learned pointer fills what the
    memory offered (`pointed`): a value it is sure of where the engine left one missing makes the
    call whole (agreeing or not, argument by argument); one it is unsure of leaves it missing."""
    if not pointer or not arguments or status not in ("agree", "differ", "missing"):
        return status, arguments
    entries = {
        k: pointed(v, pointer, (tool, k)) if isinstance(v, Mapping) else v for k, v in arguments.items()
    }
    if entries == arguments or not all(isinstance(v, Mapping) and "agrees" in v for v in entries.values()):
        return status, arguments  # unchanged, or not judged argument by argument
    if not all(v.get("local") for v in entries.values()):
        return "missing", entries
    return ("agree" if all(v["agrees"] for v in entries.values()) else "differ"), entries


def _scored(features: Mapping[str, float], weights: Mapping[str, float]) -> float:
    base = features.get("base", 0.0)
    return base + sum(weights.get(k, 0.0) * v for k, v in features.items())


Case = tuple[str, tuple[list[dict[str, float]], int, int]]  # "tool.param", `offered`'s reading


def _cross_pointer(cases: Sequence[Case]) -> tuple[int, dict[str, float]]:
    """Cross-validated, by weights fitted without each case's fold: the upstream values put first
    less those the prior put first (the pointer also decides where the engine abstained, so every
    one counts), and per tool and parameter the least of `MARGINS` at which the first offer was
    the upstream's value at least `SURE_BOUND` of the time (a case whose upstream value was not
    offered counts as a miss)."""
    gain, seen = 0, dict[str, list[tuple[float, bool]]]()
    bounds = np.linspace(0, len(cases), min(FOLDS, len(cases)) + 1).astype(int)
    for start, end in itertools.pairwise(bounds.tolist()):
        rest = [found for _, found in [*cases[:start], *cases[end:]] if found[2] >= 0]
        weights = fit(rest, POINTER_LAMBDA)
        for key, (features, _, match) in cases[start:end]:
            scores = sorted(((_scored(f, weights), i) for i, f in enumerate(features)), reverse=True)
            gain += int(pick(features, weights) == match) - int(match >= 0 and pick(features, {}) == match)
            seen.setdefault(key, []).append((scores[0][0] - scores[1][0], scores[0][1] == match))
        time.sleep(0)  # offer the GIL to the request path between fits
    margins = {}
    for key, found in seen.items():
        for margin in MARGINS:
            right = [ok for m, ok in found if m >= margin]
            if right and lower_bound(sum(right), len(right)) >= SURE_BOUND:
                margins[key] = margin
                break
    return gain, margins


def lower_bound(agreed: int, n: int) -> float:
    """Clopper-Pearson's one-sided 95% lower bound on a share seen as `agreed` of `n`."""
    return 0.0 if agreed <= 0 else float(beta.ppf(0.05, agreed, n - agreed + 1))


def _cross_gain(examples: Sequence[tuple[list[dict[str, float]], int, int]]) -> int:
    """Upstream values picked by rankings fitted without each exemplar's fold, less those the
    engine picked."""
    gain = 0
    bounds = np.linspace(0, len(examples), min(FOLDS, len(examples)) + 1).astype(int)
    for start, end in itertools.pairwise(bounds.tolist()):
        weights = fit([*examples[:start], *examples[end:]])
        for features, picked, match in examples[start:end]:
            if picked >= 0:
                gain += int(ranked_pick(features, picked, weights) == match) - int(picked == match)
        time.sleep(0)  # offer the GIL to the request path between fits
    return gain


def fit(examples: Sequence[tuple[list[dict[str, float]], int, int]], strength: float = LAMBDA) -> Weights:
    """Weights maximising the L2-regularised conditional likelihood of the upstream's values."""
    names = sorted({k for features, _, _ in examples for f in features for k in f})
    if not names:
        return {}
    col = {k: j for j, k in enumerate(names)}
    groups = []
    for features, _, match in examples:
        X = np.zeros((len(features), len(names)))
        for i, f in enumerate(features):
            for k, v in f.items():
                X[i, col[k]] = v
        base = np.array([f.get("base", 0.0) for f in features])
        groups.append((X, base, match))

    def loss(w: np.ndarray[Any, Any]) -> tuple[float, np.ndarray[Any, Any]]:
        total, grad = strength * float(w @ w), 2 * strength * w
        for X, base, match in groups:
            s = base + X @ w
            s = s - s.max()
            p = np.exp(s) / np.exp(s).sum()
            total -= float(s[match] - np.log(np.exp(s).sum()))
            grad = grad - (X[match] - p @ X)
        return total, grad

    result = minimize(loss, np.zeros(len(names)), jac=True, method="L-BFGS-B")
    return {k: round(float(v), 4) for k, v in zip(names, result.x, strict=True) if abs(v) > 1e-4}
