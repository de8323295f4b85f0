"""What every language's reader offers the argument filler, and how it loads its word tables.

A `Reader` reads the values a text writes in its language that the patterns every text is read
with (numbers in digits, quotes, capitalised names: arguments.extract) do not, and the words
around them that say what a value is. Its word tables are JSON files in its folder's `tables/`,
read once, when the reader first needs them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache
from importlib import resources
from typing import Any, Protocol


@dataclass(frozen=True)
class Span:
    text: str  # surface form in the conversation
    value: Any  # typed value offered to a parameter
    kind: str  # number | percent | date | quoted | name | ident | phrase | clause | text | currency | place
    start: int
    end: int


PlaceOf = Callable[[str], str | None]  # an English city name → "City, State" (knowledge.places)
Glossed = tuple[str, int, int]  # English word, start, end


class Reader(Protocol):
    """One language: registered in `languages.REGISTRY` under its code."""

    code: str  # ISO 639-1: "en", "zh"

    def writes(self, text: str) -> bool:
        """Whether `text` has words in this language's script (cheap: asked once per text)."""
        ...

    def share(self, text: str) -> float:
        """The share of `text`'s words in this language (the bridge moves a vector by it)."""
        ...

    def spans(self, text: str, region_of: PlaceOf, today: date | None = None) -> list[Span]:
        """The values `text` writes in this language; a date span hides the spans inside it."""
        ...

    def tokens(self, text: str) -> list[tuple[int, str]]:
        """(start, English stem) of the words the nearness features would not find."""
        ...

    def labels_before(self, text: str, at: int) -> frozenset[str]:
        """English stems of the label written right before `at` (乘客王芳 → passenger)."""
        ...

    def role_before(self, text: str, at: int, currency: bool) -> str | None:
        """ "source" or "target" when the word right before `at` says so (从巴黎, 到罗马)."""
        ...

    def offered(self, description: str, span: Span) -> bool:
        """Whether a parameter so described is offered `span` (巴黎's English name only to one
        whose examples are in English)."""
        ...

    def glossed(self, text: str) -> list[Glossed]:
        """Words naming an enum option or a flag the English way a schema writes it."""
        ...

    def negated(self, text: str, start: int) -> bool:
        """A negation is written right before `start` (不要早餐)."""
        ...


@cache
def table(package: str, name: str) -> Any:
    """The JSON word table `tables/<name>.json` of a language package, read once."""
    raw = resources.files(package).joinpath("tables", f"{name}.json").read_text(encoding="utf-8")
    return json.loads(raw)


def later(day: date, days: int = 0, months: int = 0) -> date | None:
    """`day` moved by `days`, or by calendar `months` (negative: back); None where the month
    reached lacks the day (a month from January 31st: February 28th, 29th, or March 2nd?), which
    every language's reader then leaves unread."""
    if not months:
        return day + timedelta(days=days)
    years, month = divmod(day.month - 1 + months, 12)
    try:
        return day.replace(year=day.year + years, month=month + 1)
    except ValueError:
        return None
