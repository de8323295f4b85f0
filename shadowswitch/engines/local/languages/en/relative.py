"""Relative days in English, in ISO form from today's date, read exactly or not at all:
"tomorrow", "next Monday", "in two weeks", "in a fortnight", "two weeks from today", "a week from
Friday", "a week on Monday", "three days after tomorrow", "a month from now" (tables/dates.json).

A day word tied to something this reader does not read gives no day: in "a couple of weeks from
today" or "48 hours from now" the day meant is not today, in "Friday week" not Friday. "Three days
later" is later than a day the sentence names, and "next week", "this weekend" are no one day:
none of them is read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date, timedelta

from text_to_num import text2num

from shadowswitch.engines.local.languages.base import later, table
from shadowswitch.engines.local.languages.en.words import CARDINALS

_TABLE = table(__package__ or __name__, "dates")
DAYS: dict[str, int] = _TABLE["days"]
WEEKS: dict[str, int] = _TABLE["weeks"]
WEEKDAYS: dict[str, int] = _TABLE["weekdays"]
UNITS: dict[str, int] = _TABLE["units"]  # days per unit
MONTHS: dict[str, int] = _TABLE["months"]  # months per unit
ANCHORS: dict[str, int] = _TABLE["anchors"]
MODIFIERS: dict[str, int] = _TABLE["modifiers"]

DateSpan = tuple[str, str, int, int]  # surface, value, start, end


def _either(words: Iterable[str]) -> str:
    return "|".join(sorted(words, key=len, reverse=True))  # the longest first: "days" before "day"


_CARDINAL = rf"(?:{_either(CARDINALS)})"
COUNT = rf"(?:\d+|an?|{_CARDINAL}(?:[\s-]+{_CARDINAL})*)"
UNIT = _either([*UNITS, *MONTHS])
WEEKDAY = rf"(?:(?P<week>{_either(WEEKS)})\s+)?(?P<day>{_either(WEEKDAYS)})"
CASE = re.IGNORECASE

RELATIVE_RE = re.compile(rf"\b(?:{_either(DAYS)})\b", CASE)
WEEKDAY_RE = re.compile(rf"\b{WEEKDAY}\b", CASE)
# "in two weeks", but not "in two weeks from Friday" (the compound reads it) nor "in a week or two"
IN_RE = re.compile(rf"\bin\s+(?P<n>{COUNT})\s+(?P<unit>{UNIT})\b(?!\s+(?:{_either(MODIFIERS)}|or)\b)", CASE)
COMPOUND_RE = re.compile(
    rf"\b(?P<n>{COUNT})\s+(?P<unit>{UNIT})(?:\s+(?P<mod>{_either(MODIFIERS)}))?"
    rf"\s+(?:(?P<anchor>{_either(ANCHORS)})|{WEEKDAY})\b",
    CASE,
)
# Before a count: a part of it the pattern did not take ("1.5 weeks", "half a week", "2 or 3 days").
UNREAD_COUNT = re.compile(
    r"(?:[\d.,/:-]|\b(?:half|quarter|of|and|or|to|plus|minus|few|several|than|couple))\s*$", CASE
)
# Around a day word: a unit that ties it to a count ("weeks from today", "hours from now") or a
# week that moves it ("Friday week", "Monday after next", "Friday next week").
TIED_BEFORE = re.compile(
    rf"\b(?:{UNIT}|hours?|minutes?|nights?|weekends?|half)\s+(?:(?:{_either(MODIFIERS)}|of)\s+)?$", CASE
)
TIED_AFTER = re.compile(
    r"\s+(?:week|fortnight|after\s+next|(?:of\s+)?(?:next|last|this|the\s+following)\s+(?:week|month))\b",
    CASE,
)


def relative_spans(text: str, today: date) -> list[DateSpan]:
    """Every relative day in `text` read exactly; a phrase read only in part gives none."""
    compounds = [(m, _compound(m, text, today)) for m in COMPOUND_RE.finditer(text)]
    out: list[DateSpan] = [(m.group(0), day.isoformat(), *m.span()) for m, day in compounds if day]
    for m in RELATIVE_RE.finditer(text):
        if not _tied(text, m):
            out.append(
                (m.group(0), (today + timedelta(days=DAYS[m.group(0).lower()])).isoformat(), *m.span())
            )
    for m in WEEKDAY_RE.finditer(text):
        day = None if _tied(text, m) else _weekday(today, m["week"], WEEKDAYS[m["day"].lower()])
        if day is not None:
            out.append((m.group(0), day.isoformat(), *m.span()))
    for m in IN_RE.finditer(text):
        n = None if UNREAD_COUNT.search(text[: m.start("n")]) else _count(m["n"])
        if n is not None and (day := _plus(today, n, m["unit"])) is not None:
            out.append((m.group(0), day.isoformat(), *m.span()))
    return out


def _tied(text: str, m: re.Match[str]) -> bool:
    return bool(TIED_BEFORE.search(text[: m.start()]) or TIED_AFTER.match(text, m.end()))


def _compound(m: re.Match[str], text: str, today: date) -> date | None:
    """ "two weeks from today", "a week on Monday", "a week tomorrow": the anchor's day moved by
    the count; None where any part is unsure (the count, the anchor, a day the month lacks)."""
    if UNREAD_COUNT.search(text[: m.start()]) or TIED_AFTER.match(text, m.end()):
        return None
    mod = (m["mod"] or "").lower()
    if m["anchor"]:
        anchor = m["anchor"].lower()
        if mod == "on" or (not mod and anchor not in ("today", "tomorrow")):
            return None  # "a week on today", "two days now": not how a day is said
        base: date | None = today + timedelta(days=ANCHORS[anchor])
    else:
        if not mod:
            return None  # "a week Friday": a week on Friday, or the week's Friday?
        base = _weekday(today, m["week"], WEEKDAYS[m["day"].lower()])
    n = _count(m["n"])
    if base is None or n is None:
        return None
    return _plus(base, n * MODIFIERS.get(mod, 1), m["unit"])


def _plus(day: date, n: int, unit: str) -> date | None:
    """`day` moved by `n` units: days, or calendar months for months and years."""
    unit = unit.lower()
    return later(day, days=n * UNITS[unit]) if unit in UNITS else later(day, months=n * MONTHS[unit])


def _weekday(today: date, week: str | None, weekday: int) -> date | None:
    """The day a weekday names, or None where English speakers disagree: on a Wednesday "next
    Friday" is the 3rd to some and the 10th to others, "this Monday" the one past or the one to
    come, "last Monday" the 29th or the 22nd, and "Wednesday" alone today or in a week. Where the
    readings meet ("next Monday", "last Friday", "Friday" alone) the day is read."""
    ahead = weekday - today.weekday()  # within this week: < 0 past, > 0 to come
    offset = WEEKS[week.lower()] if week else None
    if (offset == 1 and ahead > 0) or (offset == -1 and ahead < 0) or (offset == 0 and ahead < 0):
        return None
    if offset is None:
        return None if ahead == 0 else today + timedelta(days=ahead % 7)
    monday = today - timedelta(days=today.weekday())
    return monday + timedelta(days=7 * offset + weekday)


def _count(word: str) -> int | None:
    """A count written in digits or cardinal words ("3", "a", "two", "twenty five"); else None."""
    word = word.lower()
    if word.isdigit():
        return int(word)
    if word in ("a", "an"):
        return 1
    try:
        return int(text2num(word.replace("-", " "), "en"))
    except ValueError:
        return None
