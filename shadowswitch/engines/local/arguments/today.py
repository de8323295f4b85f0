"""The day relative dates are read from: the one the agent's instructions state, else the clock's.

Agents often write the current date into their system prompt ("Today is Wednesday 2027-03-10"),
in their users' time zone, or replay a conversation of another day. "Tomorrow" is then the day
after *that* date, and reading it from the server's clock would be a misread no abstention
catches. The system and developer messages are searched for a day stated as today ("today is",
"today's date:", "current date", 今天是, 当前日期) followed closely by a date:

- one day stated (however often): relative dates are read from it;
- none stated: from the clock, as before;
- a day stated that cannot be read, or two different days: unsure, so no relative date is read
  at all (the filler keeps only the dates that do not depend on the day: `fixed_dates`).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import date, timedelta

from shadowswitch.engines.local.arguments.extract import Span, extract
from shadowswitch.request import ChatView, message_text

CUE = re.compile(
    r"\b(?:today(?:'s date)?|(?:the )?current date|the date today)\s*(?:is|:)\s*"
    r"|今天是|今天[:：]|当前日期[是为:：]?",
    re.IGNORECASE,
)
WINDOW = 40  # characters after the cue the date is read from
NEAR = 25  # ... and in which it must start (a weekday's name may come first)
ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True)
class Today:
    """`day`: the stated day (None: the clock's); `unsure`: stated, but not readable as one day."""

    day: date | None = None
    unsure: bool = False


CLOCK = Today()


def stated_today(request: ChatView) -> Today:
    """The day the request's system and developer messages state as today (`Today`)."""
    stated = [_stated(message_text(m)) for m in request.messages if m.get("role") in ("system", "developer")]
    days = {day for found in stated for day in found}
    if None in days or len(days) > 1:
        return Today(unsure=True)
    return Today(next(iter(days))) if days else CLOCK


@functools.lru_cache(maxsize=256)
def _stated(text: str) -> tuple[date | None, ...]:
    """The days a text states as today (None: a statement with no readable day). Cached: an
    agent sends the same instructions with every request."""
    return tuple(_day_after(text[cue.end() : cue.end() + WINDOW]) for cue in CUE.finditer(text))


def _day_after(window: str) -> date | None:
    """The first whole day written near the start of `window`, read the same whatever today is."""
    spans = [
        s for s in fixed_dates(extract(window), extract(window, today=date(2000, 1, 1))) if s.start < NEAR
    ]
    found = sorted(
        (s for s in spans if isinstance(s.value, str) and ISO_DAY.fullmatch(s.value)), key=lambda s: s.start
    )
    return date.fromisoformat(found[0].value) if found else None


def fixed_dates(spans: list[Span], elsewhere: list[Span]) -> list[Span]:
    """`spans` less the dates whose value changes with the day they are read from (`elsewhere`:
    the same text read from another day): "tomorrow" goes, "2027-03-10" stays."""
    return [s for s in spans if s.kind != "date" or s in elsewhere]


def other_day(today: Today) -> date:
    """A day other than the one `today` reads from: what `fixed_dates` compares with."""
    return (today.day or date.today()) + timedelta(days=1)
