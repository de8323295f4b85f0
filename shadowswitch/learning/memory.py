"""The served state the local engine consults: a nearest-neighbour vote over a task type's exemplars.

The zero-shot ranking knows only the tools' descriptions; the exemplars know what the upstream
chose for requests like this one. The vote is a distribution over the offered candidates from the
closest exemplars whose choice is among them (cosine at least `FLOOR`), and it is mixed into the
zero-shot probabilities with a fitted weight, scaled down when few neighbours are close. Plain
numpy: 10,000 exemplars cost a (10,000 × 384) product, about a millisecond.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

K = 8  # neighbours that vote
FLOOR = 0.6  # cosine below which an exemplar is not "a request like this one"
TEMPERATURE = 0.05  # closer neighbours count more: weight exp((cos - best) / T)
FULL = 3  # neighbours above the floor for the vote to count in full
CONSTANT_SHARE = 0.95  # a constant is learned when (nearly) every exemplar of the tool sets it
CONSTANT_MIN = 5  # ... and at least this many did


@dataclass
class Memory:
    """One task type's served state (version 0 with no exemplars is the prior)."""

    version: int
    encoder: str
    vectors: np.ndarray[Any, Any]  # (n, dim) float32, unit length
    labels: np.ndarray[Any, Any]  # (n,) the upstream's choice per exemplar
    weight: float  # how much the vote counts against the zero-shot ranking
    min_confidence: float  # the fitted threshold on the mixed confidence
    constants: dict[str, dict[str, Any]] = field(default_factory=dict)  # tool → param → value

    def mix(self, query: np.ndarray[Any, Any], zero_shot: Mapping[str, float]) -> dict[str, float]:
        """The zero-shot probabilities with this memory's vote mixed in."""
        if not len(self.labels) or self.weight <= 0:
            return dict(zero_shot)
        sims = self.vectors @ query.astype(np.float32)
        dist, strength = vote(sims, self.labels, list(zero_shot))
        return combine(zero_shot, dist, self.weight * strength)


def vote(
    sims: np.ndarray[Any, Any], labels: np.ndarray[Any, Any], candidates: Sequence[str]
) -> tuple[dict[str, float], float]:
    """The neighbours' distribution over `candidates`, and its strength in [0, 1]."""
    mask = np.isin(labels, list(candidates)) & (sims >= FLOOR)
    if not mask.any():
        return {}, 0.0
    close, names = sims[mask], labels[mask]
    top = np.argsort(-close)[:K]
    close, names = close[top], names[top]
    weights = np.exp((close - close.max()) / TEMPERATURE)
    dist: dict[str, float] = {}
    for name, w in zip(names.tolist(), weights.tolist(), strict=True):
        dist[name] = dist.get(name, 0.0) + w
    total = sum(dist.values())
    return {k: v / total for k, v in dist.items()}, min(1.0, len(top) / FULL)


def combine(zero_shot: Mapping[str, float], dist: Mapping[str, float], alpha: float) -> dict[str, float]:
    return {c: (1 - alpha) * p + alpha * dist.get(c, 0.0) for c, p in zero_shot.items()}


def learned_constants(arguments: Sequence[tuple[str, Mapping[str, Any] | None]]) -> dict[str, dict[str, Any]]:
    """tool → {param: value} for values the upstream set in (nearly) every call of that tool and
    that were never in the conversation: a constant of the agent, not something the user said."""
    calls: dict[str, list[Mapping[str, Any]]] = {}
    for tool, args in arguments:
        calls.setdefault(tool, []).append(args or {})
    out: dict[str, dict[str, Any]] = {}
    for tool, seen in calls.items():
        if len(seen) < CONSTANT_MIN:
            continue
        params = {p for args in seen for p in args}
        for param in sorted(params):
            values = [args.get(param) for args in seen]
            found = [v for v in values if isinstance(v, dict) and not v.get("in_text") and "value" in v]
            keys = {repr(v["value"]) for v in found}
            if len(keys) == 1 and len(found) >= CONSTANT_SHARE * len(seen):
                out.setdefault(tool, {})[param] = found[0]["value"]
    return out
