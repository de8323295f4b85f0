"""A learned value ranking applied to the filler's scored values (`learning/values.py` fits it).

The filler scores each value the text offers a parameter (`filler.Pair`). A served state's ranking
adds its weights on those features, on the score itself (`base`) and on the value's shape as
written; the filler then fills in that order. What each parameter was offered is recorded
(`grounding.Read`) for the exemplar: the features, never the values.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from shadowswitch.engines.local.arguments.features import shape
from shadowswitch.engines.local.arguments.grounding import Read
from shadowswitch.engines.local.learned_state import sets, setting

if TYPE_CHECKING:
    from shadowswitch.engines.local.arguments.filler import Pair
    from shadowswitch.engines.local.arguments.params import Param

Ranking = Mapping[str, Mapping[str, float]]  # param → a learned ranking's feature weights
SHAPE_MAX = 12  # characters of a value's shape a learned ranking weighs; a longer one is "long"


def reordered(pairs: list[Pair], ranking: Ranking) -> list[Pair]:
    """The pairs in a learned ranking's order: its weights on each pair's features and score
    (`base`) are added, then a parameter's scores are shifted so that its first value keeps the
    best score the filler gave: the ranking re-orders a parameter's values, it does not make a
    value more or less convincing than the filler found the best one."""
    scores = [x.score + _ranked(x, ranking) for x in pairs]
    best: dict[str, float] = {}
    top: dict[str, float] = {}
    for x, score in zip(pairs, scores, strict=True):
        best[x.param.name] = max(best.get(x.param.name, -math.inf), x.score)
        top[x.param.name] = max(top.get(x.param.name, -math.inf), score)
    return [
        replace(x, score=score - top[x.param.name] + best[x.param.name])
        for x, score in zip(pairs, scores, strict=True)
    ]


def _ranked(pair: Pair, ranking: Ranking) -> float:
    weights = ranking.get(pair.param.name) or {}
    return sum(weights.get(k, 0.0) * v for k, v in ranked_features(pair, pair.score).items())


def ranked_features(pair: Pair, base: float) -> dict[str, float]:
    """What a learned ranking weighs: the filler's features, its score (`base`) and the value's
    shape as written ("LT-0042": `shape:A-9`; a longer one, `shape:long`), not what it says."""
    written = shape(pair.span.text)
    return {**pair.features, "base": base, f"shape:{written if len(written) <= SHAPE_MAX else 'long'}": 1.0}


def offered_values(pairs: list[Pair], chosen: dict[str, Pair], base: dict[int, float]) -> dict[str, Read]:
    """Per parameter, its values as scored before any learned ranking, the one chosen and the one
    scored first (`pairs` are in the learned ranking's order, with its scores)."""
    out: dict[str, Read] = {}
    for name in dict.fromkeys(x.param.name for x in pairs):
        mine = [x for x in pairs if x.param.name == name]
        picked = next((i for i, x in enumerate(mine) if x is chosen.get(name)), -1)
        feats = tuple(ranked_features(x, base[id(x)]) for x in mine)
        first = max(range(len(mine)), key=lambda i: mine[i].score)
        out[name] = Read(tuple(x.value for x in mine), feats, picked, first)
    return out


def set_as_learned(
    params: list[Param], scored: list[Pair], base: dict[int, float], ranking: Ranking
) -> dict[str, Pair | None]:
    """Per optional parameter with learned weights of setting it (`learning/optional.py`), the
    value they set, read on the value it would be filled with (its ranking's first), or None:
    they leave it out. The weights judged that value, not the next one."""
    out: dict[str, Pair | None] = {}
    for p in params:
        weights = setting(ranking.get(p.name) or {})
        mine = [x for x in scored if x.param.name == p.name]
        if not p.required and weights and mine:
            first = max(mine, key=lambda x: x.score)
            out[p.name] = first if sets(weights, ranked_features(first, base[id(first)])) else None
    return out
