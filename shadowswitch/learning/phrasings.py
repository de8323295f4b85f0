"""Folds that hold out whole phrasings: the head's cross-validated predictions judge wording it
never learned from.

Customers of one agent repeat themselves: the same template with another order id or name, and
a conversation's every step keeps its opening words. Folds cut in time put each phrasing in
training and in the held-out fold alike, so the predictions the threshold and the deferral are
fitted on were made by a head that had read those very words, and they were surer than a new
customer's words make it (the shop agent's new wordings: a transfer to a person served as an order
look-up at 0.90). Here the pairs whose opening words read alike are one group, and a group lies
in one fold only.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from shadowswitch.learning.head import train
from shadowswitch.learning.head_features import Example

# Cosine at which two openings are one phrasing: the shop's "I want to cancel order LK838086" and
# "... LK503162" read 0.95 and more, its "Please cancel order LK503162, I don't need it" 0.81.
SAME = 0.9
FOLDS = 5  # folds of the head's cross-validated predictions


def groups(pairs: Sequence[Example], same: float = SAME) -> list[int]:
    """Each pair's phrasing: the first earlier pair's (a group's first) whose opening words read at
    least `same` alike, or a new one."""
    if not pairs:
        return []
    words = np.stack([p.vector if p.opening is None else p.opening for p in pairs]).astype(np.float32)
    words /= np.maximum(np.linalg.norm(words, axis=1, keepdims=True), 1e-12)
    firsts: list[int] = []
    out: list[int] = []
    for i, w in enumerate(words):
        if firsts:
            sims = words[firsts] @ w
            best = int(np.argmax(sims))
            if sims[best] >= same:
                out.append(best)
                continue
        firsts.append(i)
        out.append(len(firsts) - 1)
    return out


def folds(pairs: Sequence[Example], k: int) -> list[list[int]]:
    """`k` folds of pair indices, each phrasing in one, as even in size as the phrasings allow
    (each, in order of first appearance, to the smallest fold so far); each fold in time order.
    A phrasing of more than a fold's share is what the traffic is made of, and new customers
    will use it too: it is cut in time, as all folds were before."""
    group = groups(pairs)
    members: dict[int, list[int]] = {}
    for i, g in enumerate(group):
        members.setdefault(g, []).append(i)
    share = -(-len(pairs) // k)
    out: list[list[int]] = [[] for _ in range(k)]
    for indices in members.values():
        for start in range(0, len(indices), share):
            min(out, key=len).extend(indices[start : start + share])
    return [sorted(f) for f in out if f]


def cross_predict(pairs: Sequence[Example], k: int = FOLDS) -> list[dict[str, float]]:
    """Each pair's probabilities from a head trained on the other folds: what it makes of words
    it has not read."""
    out: list[dict[str, float]] = [{} for _ in pairs]
    for fold in folds(pairs, k):
        held = set(fold)
        head = train([p for i, p in enumerate(pairs) if i not in held])
        for i, probs in zip(fold, head.predict_many([pairs[i] for i in fold]), strict=True):
            out[i] = probs
        time.sleep(0)  # hand the GIL to a request waiting for it
    return out
