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
