"""Rates with 95% intervals, differences of rates, percentiles: the figures the comparison shows.

Fixed-sample intervals come from statsmodels (Wilson for a rate, Newcombe for a difference);
they describe one window as a person reads it once. Decisions taken while watching use the
anytime-valid confidence sequences of `sequential.py` instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint

ALPHA = 0.05


@dataclass(frozen=True)
class Rate:
    hits: int
    total: int
    low: float | None = None  # the 95% interval; None without data
    high: float | None = None

    @property
    def value(self) -> float | None:
        return self.hits / self.total if self.total else None

    def json(self) -> dict[str, Any]:
        return {
            "rate": _round(self.value),
            "hits": self.hits,
            "n": self.total,
            "ci95": [_round(self.low), _round(self.high)] if self.total else None,
        }


def rate(hits: int, total: int) -> Rate:
    """A share with its Wilson 95% interval (sensible at 0 and 100%, unlike the normal one)."""
    if total <= 0:
        return Rate(0, 0)
    low, high = proportion_confint(hits, total, alpha=ALPHA, method="wilson")
    return Rate(hits, total, float(low), float(high))


def difference(a: Rate, b: Rate) -> dict[str, Any] | None:
    """a − b with Newcombe's 95% interval for two independent shares; None without data."""
    if not a.total or not b.total:
        return None
    low, high = confint_proportions_2indep(a.hits, a.total, b.hits, b.total, method="newcomb")
    value = (a.value or 0.0) - (b.value or 0.0)
    return {"diff": _round(value), "ci95": [_round(float(low)), _round(float(high))]}


def percentiles(values: list[float], qs: tuple[int, ...] = (50, 95, 99)) -> dict[str, float | None]:
    """Latency percentiles (linear interpolation, as Prometheus and numpy compute them)."""
    if not values:
        return {f"p{q}": None for q in qs}
    found = np.percentile(np.asarray(values, dtype=float), qs)
    return {f"p{q}": round(float(v), 3) for q, v in zip(qs, found, strict=True)}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
