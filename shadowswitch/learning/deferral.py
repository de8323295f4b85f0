"""Deferral: a calibrated probability that the engine's whole call agrees with the upstream's.

The served threshold applies to this probability instead of the raw choice probability. A small
logistic regression reads what the state knows of a decision before the (slow) fill: the chosen
candidate's probability and margin, its zero-shot probability, whether the zero-shot ranking put
it first too, how often the engine's call of that tool agreed for requests this close
(`memory.call_rate`), whether it is "no tool", and whether a tool already ran this turn. It is
fitted on cross-validated decisions of the pairs (each pair decided by a state that did not learn
from it), with the pair's expected agreement as the target, so its probabilities are honest ones.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import minimize

NAMES = ("logit_p", "margin", "log_zero_shot", "zero_shot_top", "gate", "no_tool", "after_call")
# Agreement never falls as these rise: their weights are kept nonnegative, so that a deferral
# cannot read a leave-one-out artefact (a pair's own label missing from its vote) as a signal.
MONOTONE = ("logit_p", "margin", "gate")
L2 = 1e-2
FOLDS = 5
EPS = 1e-4


def features(
    p: float, margin: float, zero_shot: float, zero_shot_top: bool, gate: float, no_tool: bool, after: bool
) -> list[float]:
    q = min(max(p, EPS), 1 - EPS)
    return [
        float(np.log(q / (1 - q))),
        margin,
        float(np.log(max(zero_shot, EPS))),
        float(zero_shot_top),
        gate,
        float(no_tool),
        float(after),
    ]


@dataclass(frozen=True)
class Deferral:
    coef: tuple[float, ...]  # (intercept, *weights over NAMES)

    def probability(self, x: Sequence[float]) -> float:
        z = self.coef[0] + float(np.dot(self.coef[1:], x))
        # To a hundredth: the thresholds are a 0.05 grid, and the folds' deferrals differ by noise
        # that a threshold between two of them must not read as a difference between requests.
        return round(float(1 / (1 + np.exp(-z))), 2)

    def to_json(self) -> dict[str, Any]:
        return {"features": list(NAMES), "coef": list(self.coef)}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Deferral | None:
        if not data or list(data.get("features", [])) != list(NAMES):
            return None
        return cls(tuple(float(c) for c in data["coef"]))


def train(X: np.ndarray[Any, Any], y: np.ndarray[Any, Any]) -> Deferral:
    """Logistic regression of agreement (y in [0, 1]: a soft label where only a rate is known)."""
    penalty = np.r_[0.0, np.full(X.shape[1], 0.5 * L2)]  # the intercept is not held
    bounds = [(0.0, None) if name in MONOTONE else (None, None) for name in ("intercept", *NAMES)]
    return Deferral(tuple(float(c) for c in logistic(X, y, penalty, bounds)))


def logistic(
    X: np.ndarray[Any, Any],
    y: np.ndarray[Any, Any],
    penalty: np.ndarray[Any, Any],
    bounds: Sequence[tuple[float | None, float | None]] | None = None,
) -> np.ndarray[Any, Any]:
    """The intercept and weights of a logistic regression of `y` (in [0, 1]) on `X`, minimising
    the mean log loss plus `penalty` (per coefficient, the intercept's first) times each squared
    coefficient, by L-BFGS within `bounds`."""
    A = np.hstack([np.ones((len(X), 1)), X])

    def loss(w: np.ndarray[Any, Any]) -> tuple[float, np.ndarray[Any, Any]]:
        z = A @ w
        p = 1 / (1 + np.exp(-np.clip(z, -30, 30)))
        nll = -(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12)).mean()
        grad = A.T @ (p - y) / len(y)
        return float(nll + (penalty * w * w).sum()), grad + 2 * penalty * w

    start = np.zeros(A.shape[1])
    fitted: np.ndarray[Any, Any] = minimize(loss, start, jac=True, method="L-BFGS-B", bounds=bounds).x
    return fitted


def cross_probabilities(X: np.ndarray[Any, Any], y: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Each row's probability from a deferral fitted on the other folds (contiguous in time)."""
    out = np.zeros(len(X))
    bounds = np.linspace(0, len(X), FOLDS + 1).astype(int).tolist()
    for start, end in itertools.pairwise(bounds):
        keep = np.r_[0:start, end : len(X)]
        model = train(X[keep], y[keep])
        out[start:end] = [model.probability(x) for x in X[start:end]]
    return out
