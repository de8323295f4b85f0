"""A served region's certificate: its agreement with the upstream is at least the target, at level α.

Learn-then-Test (Angelopoulos, Bates, Candès, Jordan and Lei, 2021): the region is a threshold on
the state's confidence; the thresholds are tested one after the other from the strictest down
(fixed-sequence testing, so no correction for testing many), each the null "agreement of the
answers served at this threshold < target", and the loosest threshold rejected is certified. The
first threshold that is not rejected ends the sequence.

Each test is an anytime-valid e-process (testing by betting, Waudby-Smith and Ramdas, 2023): a
bettor stakes λ_t on each served pair's agreement x_t ∈ [0, 1] exceeding the target m, its wealth
∏(1 + λ_t (x_t − m)) a nonnegative supermartingale under the null, so by Ville's inequality it ever
reaches 1/α with probability at most α, however often learning looks again. λ_t is the Kelly bet
at the agreement seen before t, mixed with `PRIOR` pseudo-pairs at `prior_rate` (1% of misses at a
95% target): predictable, so the guarantee holds whatever the stream. A bettor that starts from one
agreeing pseudo-pair stakes all but 2% of its wealth on each of the first pairs, so one miss among
them cost the region 80 more clean pairs (a region of 111 pairs with one miss never certified, in
any order); from the prior, the bet starts at the Kelly stake for 99% and a miss costs about 30
(simulated streams: one miss in 125 pairs certifies wherever it falls, two in 170; the median
stream at 2% of misses certifies after 208 pairs against 410, at 3% 696 against 1,217; a clean
run after 69 pairs against 60: `bench/certificate_bettor.py`, `pairs_needed`). The test reads
the wealth after the newest pair (valid at any time by the same inequality), not its best so far:
a region whose newest pairs disagree, after a clean start, is not certified on the start's
strength.

The sequence starts at the strictest threshold that serves at least the pairs a clean run would
need: the start reads the confidences only, never whether a pair agreed, so the fixed sequence
stays fixed given them.

`Monitor` is the mirror image: an e-process against "agreement ≥ target" over a served state's
compared answers, which withdraws its certificate when it reaches 1/α.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from shadowswitch.analysis.sequential import ALPHA, confidence_sequence

CAP = 0.98  # of the largest stake 1/m: a miss then leaves 2% of the wealth, not nothing
GRID = (1.0, 0.99, 0.98, 0.97, *(abs(round(0.95 - 0.05 * i, 2)) for i in range(20)))  # strictest first
WATCH_CAP = 0.5  # of the monitor's largest stake 1/(1 − m): an agreeing answer halves it at most
WATCH_PRIOR = 10.0  # pseudo-answers at the target the monitor's bet starts from
WATCH_DECAY = 0.95  # the bet reads about the last 20 answers: a change of behaviour shows at once


PRIOR = 100.0  # pseudo-pairs the bettor's agreement starts from


def prior_rate(target: float) -> float:
    """The agreement the bettor starts from: a fifth of the misses the target allows."""
    return 1 - (1 - target) / 5


def stakes(before: np.ndarray[Any, Any], seen: np.ndarray[Any, Any], target: float) -> np.ndarray[Any, Any]:
    """The Kelly stake on x − target at the agreement `before` of `seen` pairs and the prior's,
    capped at `CAP` of 1/target."""
    rate = (before + PRIOR * prior_rate(target)) / (seen + PRIOR)
    return np.clip((rate - target) / (target * (1 - target)), 0.0, CAP / target)


def log_wealth(xs: Sequence[float], target: float) -> np.ndarray[Any, Any]:
    """The bettor's log-wealth after each pair of `xs` (agreement in [0, 1], in time order)."""
    x = np.asarray(xs, dtype=np.float64)
    if not len(x):
        return np.zeros(0)
    before = np.concatenate([[0.0], np.cumsum(x)[:-1]])
    stake = stakes(before, np.arange(len(x), dtype=np.float64), target)
    return np.cumsum(np.log1p(stake * (x - target)))


@functools.lru_cache(maxsize=256)  # every `certify` asks it for a clean run's pairs
def pairs_needed(rate: float, target: float, alpha: float = ALPHA, limit: int = 100_000) -> int | None:
    """About how many served pairs at agreement `rate` certify a region: the bettor's expected
    log-wealth reaches ln 1/α (None: not within `limit`; never at or below the target). At 95%:
    about 69 clean ones, 120 at 1% misses, 270 at 2%, 790 at 3%."""
    if rate <= target:
        return None
    seen = np.arange(limit, dtype=np.float64)
    stake = stakes(rate * seen, seen, target)
    gain = rate * np.log1p(stake * (1 - target)) + (1 - rate) * np.log1p(-stake * target)
    hit = np.flatnonzero(np.cumsum(gain) >= math.log(1 / alpha))
    return int(hit[0]) + 1 if hit.size else None


@dataclass(frozen=True)
class Step:
    """One threshold's test: the pairs it serves, their agreement, and the evidence so far."""

    threshold: float
    served: int
    agreed: float
    coverage: float
    evidence: float  # the e-process's value after the newest pair (certified at 1/α)
    rejected: bool

    @property
    def agreement(self) -> float | None:
        return self.agreed / self.served if self.served else None


@dataclass(frozen=True)
class Certificate:
    """The certified region (None: none) of one state on `pairs` held-out pairs, at `target`."""

    target: float
    pairs: int
    threshold: float | None
    steps: tuple[Step, ...] = field(default=())
    alpha: float = ALPHA

    @property
    def certified(self) -> Step | None:
        return next((s for s in reversed(self.steps) if s.rejected), None)

    @property
    def next_step(self) -> Step | None:
        """The threshold the sequence stopped at: the one more pairs would certify next."""
        return next((s for s in self.steps if not s.rejected), None)

    def lower_bound(self) -> float | None:
        """The anytime-valid lower bound of the certified region's agreement."""
        step = self.certified
        if step is None:
            return None
        return confidence_sequence(round(step.agreed), step.served, self.alpha)[0]

    def more_pairs(self) -> int | None:
        """Held-out pairs still needed, at the next step's observed miss rate and coverage, for
        its e-process to reach 1/α (None: not at this miss rate, or nothing left to certify)."""
        step = self.next_step
        if step is None:
            return None
        rate = step.agreement if step.served else 1.0
        needed = pairs_needed(rate or 0.0, self.target, self.alpha)
        if needed is None:
            return None
        coverage = step.coverage or 1.0 / max(self.pairs, 1)
        return max(math.ceil((needed - step.served) / coverage), 1)

    def to_json(self) -> dict[str, Any]:
        step = self.certified
        low = self.lower_bound()
        following = self.next_step
        return {
            "target": self.target,
            "alpha": self.alpha,
            "pairs": self.pairs,
            "threshold": self.threshold,
            "served": step.served if step else 0,
            "coverage": round(step.coverage, 4) if step else 0.0,
            "agreement": round(step.agreement or 0.0, 4) if step else None,
            "lower_bound": None if low is None else round(low, 4),
            "next_threshold": following.threshold if following else None,
            "more_pairs": self.more_pairs(),
        }


def certify(
    confidences: Sequence[float],
    agreements: Sequence[float],
    target: float,
    alpha: float = ALPHA,
    eligible: Sequence[bool] | None = None,
) -> Certificate:
    """Fixed-sequence testing over `GRID`, from the strictest threshold that serves enough pairs
    down: each served pair (confidence ≥ threshold and `eligible`) in time order feeds that
    threshold's e-process. The loosest threshold rejected is certified."""
    conf = np.asarray(confidences, dtype=np.float64)
    agree = np.asarray(agreements, dtype=np.float64)
    ok = np.ones(len(conf), bool) if eligible is None else np.asarray(eligible, bool)
    clean = pairs_needed(1.0, target, alpha) or 1
    start = next((t for t in GRID if ((conf >= t) & ok).sum() >= clean), GRID[-1])
    steps: list[Step] = []
    bar = math.log(1 / alpha)
    for threshold in GRID[GRID.index(start) :]:
        mask = (conf >= threshold) & ok
        if steps and mask.sum() == steps[-1].served:
            continue  # serves no pair more: nothing seen vouches for the confidences below
        xs = agree[mask]
        path = log_wealth(xs, target)
        best = float(path[-1]) if len(path) else 0.0  # now, not its best: the newest pairs count
        coverage = float(mask.sum() / len(conf)) if len(conf) else 0.0
        step = Step(threshold, int(mask.sum()), float(xs.sum()), coverage, math.exp(best), best >= bar)
        steps.append(step)
        if not step.rejected:
            break
    chosen = next((s for s in reversed(steps) if s.rejected), None)
    return Certificate(target, len(conf), chosen.threshold if chosen else None, tuple(steps), alpha)


@dataclass
class Monitor:
    """An e-process against "agreement ≥ target" over a certified state's compared answers.

    Stakes on x below the target, with the Kelly bet at the recent agreement (an exponentially
    weighted mean that starts at the target with the weight of `WATCH_PRIOR` answers): under the
    null its wealth reaches 1/α with probability at most α, ever; once it does, agreement is shown
    below the target."""

    target: float
    alpha: float = ALPHA
    wealth: float = 1.0
    compared: int = 0
    agreed: float = 0.0
    level: float = -1.0  # the recent agreement the bet reads (−1: not started: the target)
    weight: float = WATCH_PRIOR

    def add(self, agreement: float) -> bool:
        """One compared answer (1 agreed, 0 not); True once the state is shown below the target."""
        m = self.target
        level = m if self.level < 0 else self.level
        stake = min(max((m - level) / (m * (1 - m)), 0.0), WATCH_CAP / (1 - m))
        self.wealth *= 1 + stake * (m - agreement)
        self.weight *= WATCH_DECAY
        self.level = (level * self.weight + agreement) / (self.weight + 1)
        self.weight += 1
        self.compared += 1
        self.agreed += agreement
        return self.failed

    @property
    def failed(self) -> bool:
        return self.wealth >= 1 / self.alpha
