"""The head's cross-validated folds hold out whole phrasings (`learning/phrasings.py`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from shadowswitch.learning.fit import Pair
from shadowswitch.learning.phrasings import cross_predict, folds, groups

DIM = 16
RNG = np.random.default_rng(0)
TEMPLATES = [RNG.normal(size=DIM) for _ in range(6)]
TEMPLATES[3] = TEMPLATES[2] + RNG.normal(scale=0.5, size=DIM)  # another way to say it: cosine about 0.9


def worded(template: int, noise: float = 0.05, opening: bool = True) -> Any:
    """A pair whose opening words are `template`'s, as another customer writes it (an id apart)."""
    words = TEMPLATES[template] + RNG.normal(scale=noise, size=DIM)
    last = RNG.normal(size=DIM)  # the last turn's words: a "yes", an email, anything

    @dataclass
    class Worded:
        vector: Any = field(default_factory=lambda: last if opening else words)
        opening: Any = field(default_factory=lambda: words if opening else None)

    return Worded()


def test_one_phrasing_is_one_group_whichever_turn_carries_its_words() -> None:
    pairs = [worded(0), worded(1), worded(0, opening=False), worded(2), worded(1, opening=False)]
    assert groups(pairs) == [0, 1, 0, 2, 1]
    far = [worded(0, noise=2.0) for _ in range(4)]  # words far apart: each its own phrasing
    assert len(set(groups(far))) == 4


def test_a_phrasing_lies_in_one_fold_and_the_folds_are_even() -> None:
    templates = [i % 6 for i in range(60)]
    pairs = [worded(t) for t in templates]
    split = folds(pairs, 3)
    assert sorted(i for f in split for i in f) == list(range(60))
    for f in split:
        assert f == sorted(f)
        held = {templates[i] for i in f}
        assert not held & {templates[i] for g in split if g is not f for i in g}
    assert [len(f) for f in split] == [20, 20, 20]


def test_a_phrasing_the_traffic_is_made_of_is_cut_in_time() -> None:
    pairs = [worded(0) for _ in range(10)]
    assert folds(pairs, 5) == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]]
    mostly = [worded(0) if i % 5 else worded(1 + i // 5) for i in range(20)]  # 16 of 20 one phrasing
    split = folds(mostly, 4)
    assert len(split) == 4 and max(len(f) for f in split) <= 6


def test_the_head_predicts_a_pair_without_its_phrasing() -> None:
    """A label only one phrasing ever had is new to the head that predicts that phrasing's pairs:
    it cannot be learned from its own phrasing's other pairs, as folds cut in time let it."""
    labels = dict(
        enumerate(["get_order", "get_order", "cancel_order", "cancel_order", "transfer", "get_order"])
    )
    pairs = []
    for i in range(90):
        t = i % 6
        w = worded(t)
        pairs.append(
            Pair(
                id=i,
                vector=w.vector,
                label=labels[t],
                zero_shot={"get_order": 0.4, "cancel_order": 0.3, "transfer": 0.3},
                local_tool=None,
                args_status="none",
                opening=w.opening,
            )
        )
    probs = cross_predict(pairs)
    transfer = [p["transfer"] for p, pair in zip(probs, pairs, strict=True) if pair.label == "transfer"]
    cancel = [p["cancel_order"] for p, pair in zip(probs, pairs, strict=True) if pair.label == "cancel_order"]
    assert max(transfer) < 0.5  # never seen in its other folds: not sure of it
    assert min(cancel) > 0.4  # another phrasing of it was: learned
