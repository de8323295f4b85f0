"""Tool2Vec usage vectors for the choice head: a candidate described by the queries that chose it.

Keyed by a candidate, or by a candidate after a given last tool (the same words ask for another
step once a first one has run: "reset the password of Ann" is a look-up first, then the reset).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from shadowswitch.learning.head_features import Example


@dataclass
class Usage:
    """Tool2Vec: per key (a candidate, or a candidate after a given last tool), the unit mean of
    the query vectors that chose it; with the sums and counts in training, so that each example's
    own vector is left out of its label's mean."""

    keys: list[str]
    unit: np.ndarray[Any, Any]  # (K, d)
    sums: np.ndarray[Any, Any] | None = None
    counts: np.ndarray[Any, Any] | None = None

    @classmethod
    def of(cls, examples: Sequence[Example], keys: list[str], key_of: Callable[[Example], str]) -> Usage:
        index = {k: i for i, k in enumerate(keys)}
        dim = examples[0].vector.shape[0]
        sums, counts = np.zeros((len(keys), dim)), np.zeros(len(keys))
        for e in examples:
            sums[index[key_of(e)]] += e.vector
            counts[index[key_of(e)]] += 1
        return cls(keys, unit(sums), sums, counts)

    def cosine(self, e: Example, i: int, k: int, cosines: np.ndarray[Any, Any], own: bool) -> float:
        """Example i's cosine to key k's vector; `own`: k is its label's key, left out of it."""
        if k < 0:
            return 0.0
        if own and self.sums is not None and self.counts is not None:
            rest = self.sums[k] - e.vector
            norm = float(np.linalg.norm(rest))
            return float(e.vector @ rest / norm) if self.counts[k] > 1 and norm > 1e-9 else 0.0
        return float(cosines[i, k])


def unit(m: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    norms = np.linalg.norm(m, axis=-1, keepdims=True)
    return np.where(norms > 1e-9, m / np.maximum(norms, 1e-9), 0.0).astype(np.float32)
