"""Per-key limits: requests in the current UTC minute, upstream money in the current UTC day.

Fixed windows, counted in the database by every replica (`access.store.UsageStore`). Money is
counted as the report counts it (`analysis.pricing`): tokens of a non-local answer at LiteLLM's
price for its upstream model; a local answer costs nothing but counts as a request.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from shadowswitch.access.keys import AgentKey
from shadowswitch.analysis.pricing import call_cost

if TYPE_CHECKING:
    from shadowswitch.store.tables import Decision


@dataclass(frozen=True)
class Windows:
    minute: str  # the usage row's bucket
    day: str
    minute_left_s: int  # Retry-After when the minute is full
    day_left_s: int

    @classmethod
    def at(cls, now: datetime) -> Windows:
        now = now.astimezone(UTC)
        minute = now.replace(second=0, microsecond=0)
        day = now.replace(hour=0, minute=0, second=0, microsecond=0)
        return cls(
            minute=f"m:{minute:%Y-%m-%dT%H:%M}",
            day=f"d:{day:%Y-%m-%d}",
            minute_left_s=_seconds_until(now, minute + timedelta(minutes=1)),
            day_left_s=_seconds_until(now, day + timedelta(days=1)),
        )


def _seconds_until(now: datetime, then: datetime) -> int:
    return max(1, math.ceil((then - now).total_seconds()))


@dataclass(frozen=True)
class Refusal:
    message: str
    retry_after_s: int
    code: str


def over_limit(key: AgentKey, requests: int, usd_today: float, windows: Windows) -> Refusal | None:
    """Why this request (the `requests`-th of its minute) may not go on; None when it may."""
    if key.rpm is not None and requests > key.rpm:
        return Refusal(
            f"key {key.name!r} is over its rate limit of {key.rpm} requests a minute",
            windows.minute_left_s,
            "rate_limit_exceeded",
        )
    if key.budget_usd_per_day is not None and usd_today >= key.budget_usd_per_day:
        return Refusal(
            f"key {key.name!r} has spent its budget of {key.budget_usd_per_day:g} USD for today (UTC)",
            windows.day_left_s,
            "budget_exceeded",
        )
    return None


def decision_cost(decision: Decision) -> float:
    """Upstream money of one decision: 0 for a local answer, an unpriced model or no token count."""
    if decision.path == "local":
        return 0.0
    return call_cost(decision.upstream_model, decision.prompt_tokens, decision.completion_tokens) or 0.0
