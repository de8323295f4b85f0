"""Anytime-valid confidence sequences for a rate, so a verdict stays honest however often it is read.

A fixed 95% interval is right 95% of the time for one look at one sample size. People look at a
comparison again and again while the pairs come in, and the first look at which a fixed interval
happens to exclude the truth would be taken as evidence. A confidence sequence holds at every
sample size at once: with probability 1 − α it contains the true rate at all times.

The one used here is the beta-binomial mixture (Robbins; Howard, Ramdas, McAuliffe and Sekhon,
"Time-uniform, nonparametric, nonasymptotic confidence sequences", 2021): the likelihood ratio
of a Beta(1, 1) mixture against the rate p is a nonnegative martingale when p is the truth, so
by Ville's inequality it exceeds 1/α with probability at most α, ever. The sequence is the set of
p where it has not: {p : log M_n(p) < log(1/α)}, an interval around the observed rate, whose
ends are found with scipy's root finder.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

from scipy.optimize import brentq
from scipy.special import betaln, xlog1py, xlogy

ALPHA = 0.05
PRIOR = 1.0  # Beta(1, 1): no rate favoured
EDGE = 1e-12


@functools.lru_cache(maxsize=65536)
def confidence_sequence(hits: int, total: int, alpha: float = ALPHA) -> tuple[float, float]:
    """The (low, high) bounds on the true rate after `hits` of `total`, valid at every `total`."""
    if total <= 0:
        return 0.0, 1.0
    threshold = math.log(1 / alpha)
    mixture = betaln(PRIOR + hits, PRIOR + total - hits) - betaln(PRIOR, PRIOR)

    def excess(p: float) -> float:  # log M_n(p) − log(1/α): below 0 inside the sequence
        return float(mixture - xlogy(hits, p) - xlog1py(total - hits, -p) - threshold)

    center = min(max(hits / total, EDGE), 1 - EDGE)  # the mixture beats no p better than its MLE
    low = 0.0 if excess(EDGE) < 0 else brentq(excess, EDGE, center)
    high = 1.0 if excess(1 - EDGE) < 0 else brentq(excess, center, 1 - EDGE)
    return float(low), float(high)


def pairs_needed(rate: float, half_width: float, alpha: float = ALPHA, limit: int = 1_000_000) -> int:
    """About how many observations at `rate` bring the sequence to ± `half_width` (doubling, then
    bisecting the sample size): what "not enough data" waits for."""

    def wide(n: int) -> bool:
        low, high = confidence_sequence(round(rate * n), n, alpha)
        return (high - low) / 2 > half_width

    high = 16
    while wide(high) and high < limit:
        high *= 2
    low = high // 2
    while high - low > max(1, low // 50):
        middle = (low + high) // 2
        low, high = (middle, high) if wide(middle) else (low, middle)
    return high


def betting_wealth(steps: Sequence[float], alpha: float = ALPHA, cap: float = 0.8) -> float:
    """Evidence that the mean of `steps` (each in [−1, 1], in the order observed) is above 0.

    A bettor stakes λ_t of its wealth on each step: wealth ∏(1 + λ_t x_t) is a nonnegative
    martingale when the mean is at most 0, so it reaches 1/α with probability at most α, however
    often it is read (Ville). λ_t is chosen from the steps before t only (the predictable
    plug-in of Waudby-Smith and Ramdas, "Estimating means of bounded random variables by betting",
    2023), so a few large gains and many small losses — the shape of a paired comparison that
    weighs a wrong answer far above an abstention — count for what they are worth, which a sign
    test of wins against losses cannot do."""
    wealth, total, squares = 1.0, 0.0, 0.25
    log_inv = math.log(1 / alpha)
    for t, x in enumerate(steps, start=1):
        mean = total / t  # the steps before t, with one pseudo-step at 0 (the null)
        variance = squares / t
        stake = min(cap, math.sqrt(2 * log_inv / (variance * t * math.log(t + 1))))
        stake = stake if mean > 0 else stake * 0.25  # stake less while the evidence points down
        wealth *= 1 + stake * x
        total += x
        squares += (x - total / t) ** 2
    return wealth
