"""Tool2Vec usage vectors for the choice head: a candidate described by the queries that chose it.

Keyed by a candidate, or by a candidate after a given last tool (the same words ask for another
step once a first one has run: "reset the password of Ann" is a look-up first, then the reset).
Of the query vectors, or of the agent's last replies (the questions a "yes" answered before the
candidate ran: "Shall I cancel order 1234?" describes `cancel_order`).
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
    def of(
        cls,
        examples: Sequence[Example],
        keys: list[str],
        key_of: Callable[[Example], str],
        vectors: np.ndarray[Any, Any],
    ) -> Usage:
        """`vectors`: the examples' vectors to average, one row each (queries or replies)."""
        index = {k: i for i, k in enumerate(keys)}
        sums, counts = np.zeros((len(keys), vectors.shape[1])), np.zeros(len(keys))
        for e, vector in zip(examples, vectors, strict=True):
            sums[index[key_of(e)]] += vector
            counts[index[key_of(e)]] += 1
        return cls(keys, unit(sums), sums, counts)

    def cosine(
        self, vector: np.ndarray[Any, Any], i: int, k: int, cosines: np.ndarray[Any, Any], own: bool
    ) -> float:
        """Example i's (`vector`) cosine to key k's vector; `own`: k is its label's key, left out
        of it."""
        if k < 0:
            return 0.0
        if own and self.sums is not None and self.counts is not None:
            rest = self.sums[k] - vector
            norm = float(np.linalg.norm(rest))
            return float(vector @ rest / norm) if self.counts[k] > 1 and norm > 1e-9 else 0.0
        return float(cosines[i, k])


def unit(m: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    norms = np.linalg.norm(m, axis=-1, keepdims=True)
    return np.where(norms > 1e-9, m / np.maximum(norms, 1e-9), 0.0).astype(np.float32)
