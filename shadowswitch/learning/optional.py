"""Whether an optional parameter is set, learned per request from the upstream's pairs.

The filler sets an optional parameter when the best value the text offers it scores at least a
threshold fitted once per kind of parameter on development data (`filler._threshold`). An agent's
upstream has its own habits: it leaves the head count out of a booking whatever the user says,
and names the host when the user says whose meeting it is, a name the prior scores too low. Each
exemplar keeps, per optional parameter of the upstream's tool that the text offered a value, the
features of the value the engine fills (the filler's, its score `base` and its shape as written:
`arguments/ranking.ranked_features`), whether the engine set it and whether the upstream left it
out (`out`), set it to that value (`top`) or to another (`other`) — never the value
(`exemplar._optional`).

Per tool and parameter, a logistic regression on those features (L2-regularised, fitted by
L-BFGS) says whether the upstream sets it; it is kept only when, each exemplar judged by weights
fitted without its fold, it agrees with the upstream at least `GAIN` times more often than the
engine did. It adds no value: it sets or leaves out a value the text offers, with its
provenance, and a call it changes is judged whole, by the replay and the certificate, like any
other.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from shadowswitch.engines.local.learned_state import Weights, sets
from shadowswitch.learning.deferral import logistic
from shadowswitch.learning.values import FOLDS, GAIN, MIN, NEWEST

Example = tuple[dict[str, float], str, bool]  # the value's features, the upstream's doing, the engine set it
# L2 strength on the weights: no offset holds them (a ranking's has the filler's score), and at 1.0
# they stayed too small to set anything (a booking's host, a name the upstream sets when the user says
# whose meeting it is, 14 more agreeing of 48 cross-validated at 0.1 and 0.3, 3 at 1.0)
SET_LAMBDA = 0.1
BIAS_LAMBDA = 0.01  # the bias is barely held: a parameter the upstream never sets has a large negative one


def fit_setting(records: Sequence[tuple[str, Mapping[str, Any] | None]]) -> dict[str, dict[str, Weights]]:
    """tool → {param: weights of setting it} for the optional parameters whose weights agree with
    the upstream more often than the engine did, cross-validated (`records`: each exemplar's tool
    and `optional` record)."""
    seen: dict[tuple[str, str], list[Example]] = {}
    for tool, record in records:
        for param, r in ((record or {}).get("params") or {}).items():
            example = (dict(r.get("features") or {}), str(r["set"]), bool(r["filled"]))
            seen.setdefault((tool, param), []).append(example)
    out: dict[str, dict[str, Weights]] = {}
    for (tool, param), examples in sorted(seen.items()):
        examples = examples[-NEWEST:]
        if len(examples) >= MIN and cross_gain(examples) >= GAIN:
            out.setdefault(tool, {})[param] = fit(examples)
    return out


def agrees(set_: bool, done: str) -> bool:
    """Setting it agrees where the upstream set the value the engine fills, leaving it out where
    the upstream left it out; where it set another value, neither does."""
    return done == "top" if set_ else done == "out"


def cross_gain(examples: Sequence[Example]) -> int:
    """Agreements of weights fitted without each example's fold, less the engine's."""
    gain = 0
    bounds = np.linspace(0, len(examples), min(FOLDS, len(examples)) + 1).astype(int)
    for start, end in itertools.pairwise(bounds.tolist()):
        weights = fit([*examples[:start], *examples[end:]])
        for features, done, filled in examples[start:end]:
            gain += agrees(sets(weights, features), done) - agrees(filled, done)
        time.sleep(0)  # offer the GIL to the request path between fits
    return gain


def fit(examples: Sequence[Example]) -> Weights:
    """Weights of the logistic regression of `top` against `out` on the value's features ("":
    the bias); an example whose upstream set another value teaches neither."""
    taught = [(f, done == "top") for f, done, _ in examples if done != "other"]
    names = sorted({k for f, _ in taught for k in f if k})
    if not taught:
        return {}
    X = np.array([[f.get(k, 0.0) for k in names] for f, _ in taught]).reshape(len(taught), len(names))
    y = np.array([1.0 if top else 0.0 for _, top in taught])
    strength = np.array([BIAS_LAMBDA] + [SET_LAMBDA] * len(names)) / len(taught)  # on the mean loss
    w = logistic(X, y, strength)
    return {k: round(float(v), 4) for k, v in zip(["", *names], w, strict=True) if abs(v) > 1e-4}


def settled(
    status: str,
    arguments: Mapping[str, Any] | None,
    record: Mapping[str, Any] | None,
    setting: Mapping[str, Weights],
) -> tuple[str, Mapping[str, Any] | None]:
    """A pair's argument status and arguments once the learned weights (`setting`: param →
    weights) set or leave out its optional parameters: one the upstream set is filled (agreeing
    when it was the value the engine fills) or left out; one it left out and the engine set makes
    the call differ, and when none is left, the call is judged argument by argument (the record's
    `agrees`)."""
    params: Mapping[str, Any] = (record or {}).get("params") or {}
    now = {k: sets(setting[k], r.get("features") or {}) for k, r in params.items() if k in setting}
    if (
        not arguments
        or status not in ("agree", "differ", "absent")
        or all(f == params[k]["filled"] for k, f in now.items())
    ):
        return status, arguments
    entries = {k: dict(v) if isinstance(v, Mapping) else v for k, v in arguments.items()}
    for k, set_ in now.items():
        if params[k]["set"] != "out" and isinstance(entries.get(k), dict):
            entries[k] = {**entries[k], "local": set_, "agrees": set_ and params[k]["set"] == "top"}
    extra = [k for k, r in params.items() if r["set"] == "out" and now.get(k, r["filled"])]
    if extra:  # the engine sets a parameter the upstream left out: not judged argument by argument
        return "differ", {k: _unjudged(v) for k, v in entries.items()}
    recorded: Mapping[str, bool] = (record or {}).get("agrees") or {}
    for k, v in entries.items():
        if isinstance(v, dict) and "agrees" not in v and k in recorded:
            v["agrees"] = recorded[k]
    judged = [v.get("agrees") for v in entries.values() if isinstance(v, dict)]
    if len(judged) != len(entries) or any(a is None for a in judged):
        return status, entries
    return ("agree" if all(judged) else "differ"), entries


def _unjudged(entry: Any) -> Any:
    return {k: v for k, v in entry.items() if k != "agrees"} if isinstance(entry, dict) else entry
