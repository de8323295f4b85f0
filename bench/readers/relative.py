"""The relative-date battery: counted phrases in English and Chinese against dateparser (BSD),
alone and inside sentences, over a grid of todays (`shadowswitch bench readers`).

dateparser reads "in two weeks", "Friday", "tomorrow" and "3 days ago" right, but misreads
"two weeks from today" (as two weeks ago) and does not read "a week on Monday" or 两周后. So
each phrase is paired with the canonical parts dateparser does read: the anchor day, then "in N
units" (or "N units ago") from that day as its RELATIVE_BASE. A Chinese phrase is paired with the
English parts it says (两周后: "in 2 weeks"). Phrases that name no one day ("next week", "this
weekend", "three days later", "a couple of weeks from today") have no truth: any day read over
them is a misread.

Per family: cases, read (the right day at the phrase's place), abstained (no day there) and
misread (a wrong day over any part of the phrase), judged as battery.Tally judges every reader.
"""

from __future__ import annotations

import calendar
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from functools import cache
from typing import Any

from bench.readers.tally import Tally

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
# count as written, its value
COUNTS = (("a", 1), ("one", 1), ("two", 2), ("three", 3), ("5", 5), ("ten", 10), ("twenty-one", 21))
UNITS = (("day", "days", "day"), ("week", "weeks", "week"), ("fortnight", "fortnights", "2-week"))
UNITS += (("month", "months", "month"), ("year", "years", "year"))
ANCHORS = ("today", "now", "tomorrow", "yesterday")
NO_ONE_DAY = (
    "next week", "this weekend", "next month", "three days later", "a week later", "two weeks ago",
    "a couple of weeks from today", "a few days from now", "48 hours from now", "Friday week",
    "1.5 weeks from today", "half a week from today", "in a week or two", "two or three days from today",
    "the Monday after next", "a day and a half from today",
)  # fmt: skip
EN_FRAMES = (
    "{x} works for the meeting",
    "Book {x} for 3 people, budget 250 dollars",
    "Can you remind me {x} about the 2 invoices?",
    "We said {x}; the order is 12",
)
ZH_FRAMES = ("{x}开会可以吗？订3个人的房间", "我们{x}见面，预算250元", "请{x}提醒我，发票号是42")
ZH_COUNTS = ((1, "一"), (2, "两"), (3, "三"), (5, "5"), (10, "十"), (15, "十五"), (21, "二十一"))
ZH_UNITS = (("天", "day"), ("周", "week"), ("个星期", "week"), ("个月", "month"), ("年", "year"))
ZH_MONTHS = (("下个", 1), ("下", 1), ("这个", 0), ("本", 0), ("上个", -1))
ZH_NO_ONE_DAY = ("下周", "这个周末", "下个月", "半个月后", "两三天后", "十几天后", "几天后")


@dataclass(frozen=True)
class Case:
    family: str
    phrase: str
    anchor: str | None  # the day the count is taken from, as dateparser reads it (None: today)
    count: str | None  # "in 2 weeks" or "2 weeks ago", from the anchor (None: the anchor itself)


@cache
def parsed(phrase: str, base: date, language: str = "en") -> date | None:
    """dateparser's day for `phrase` said on `base`."""
    import dateparser

    settings: Any = {
        "RELATIVE_BASE": datetime(base.year, base.month, base.day, 12),
        "PREFER_DATES_FROM": "future",
    }
    found = dateparser.parse(phrase, languages=[language], settings=settings)
    return found.date() if found else None


def truth(case: Case, today: date) -> date | None:
    if case.family == "no one day":
        return None
    base = parsed(case.anchor, today) if case.anchor else today
    if base is None or case.count is None:
        return base
    return parsed(case.count, base)


def _moved(n: int, unit: str, sign: int) -> str:
    n, unit = (2 * n, "week") if unit == "2-week" else (n, unit)
    return f"in {n} {unit}s" if sign > 0 else f"{n} {unit}s ago"


def en_cases() -> list[Case]:
    out = [
        Case("the day after tomorrow", p, p, None)
        for p in ("the day after tomorrow", "the day before yesterday")
    ]
    for word, n in COUNTS:
        for one, many, unit in UNITS:
            said = f"{word} {one if n == 1 else many}"
            out.append(Case("in N units", f"in {said}", None, _moved(n, unit, 1)))
            for mod, sign in (("from", 1), ("after", 1), ("before", -1)):
                out += [
                    Case("N units from a day", f"{said} {mod} {a}", a, _moved(n, unit, sign)) for a in ANCHORS
                ]
            for day in WEEKDAYS[::3]:
                out += [Case("a week from Friday", f"{said} from {day}", day, _moved(n, unit, 1))]
                out += [Case("a week on Monday", f"{said} on {day}", day, _moved(n, unit, 1))]
            out += [Case("a week today", f"{said} {a}", a, _moved(n, unit, 1)) for a in ("today", "tomorrow")]
    return out + [Case("no one day", p, None, None) for p in NO_ONE_DAY]


def zh_cases() -> list[Case]:
    out = [Case("大后天", p, None, f"in {n} days") for p, n in (("明天", 1), ("后天", 2), ("大后天", 3))]
    for n, written in ZH_COUNTS:
        for unit, english in ZH_UNITS:
            for after, sign in (("后", 1), ("以后", 1), ("之后", 1), ("前", -1)):
                out.append(Case("两周后", f"{written}{unit}{after}", None, _moved(n, english, sign)))
    for which, k in ZH_MONTHS:
        for d, written in ((1, "一"), (3, "三"), (15, "15"), (29, "二十九"), (31, "三十一")):
            out.append(Case("下个月三号", f"{which}月{written}号", f"month {k} day {d}", None))
    return out + [Case("no one day", p, None, None) for p in ZH_NO_ONE_DAY]


def zh_truth(case: Case, today: date) -> date | None:
    """The Chinese case's day: its English parts read by dateparser; 下个月三号 as "3 June 2024"."""
    if case.anchor is None or not case.anchor.startswith("month "):
        return truth(case, today)
    _, k, _, d = case.anchor.split()
    year, month = divmod(today.month - 1 + int(k), 12)
    name = calendar.month_name[month + 1]
    if int(d) > calendar.monthrange(today.year + year, month + 1)[1]:
        return None  # the month lacks the day: no day
    return parsed(f"{d} {name} {today.year + year}", today)


def judge(cases: Iterable[tuple[Case, date, date | None]], frames: tuple[str, ...]) -> dict[str, Any]:
    """Each case alone and in each frame, read by the whole extraction on its day."""
    from shadowswitch.engines.local.arguments.extract import extract

    families: dict[str, Tally] = {}
    total = Tally()
    for case, today, right in cases:
        for frame in ("{x}", *frames):
            text = frame.format(x=case.phrase)
            start, end = text.index(case.phrase), text.index(case.phrase) + len(case.phrase)
            spans = extract(text, today=today)
            found = [(s.value, s.start, s.end) for s in spans if s.kind == "date" and _day(s.value)]
            for tally in (families.setdefault(case.family, Tally()), total):
                tally.judge(text, right.isoformat() if right else None, start, end, found)
    return {
        "total": _counts(total),
        "families": {name: _counts(tally) for name, tally in families.items()},
        "misread_examples": total.examples,
    }


def _counts(tally: Tally) -> dict[str, int]:
    """A tally as this battery reports it: a case not read is an abstention."""
    return {"cases": tally.tried, "read": tally.read, "abstained": tally.missed, "misread": tally.misread}


def _day(value: Any) -> bool:
    return isinstance(value, str) and len(value) == 10 and value[:4].isdigit()


def relative_battery(todays: list[date], frames: bool = True) -> dict[str, Any]:
    """English and Chinese relative days over `todays`, each phrase alone and (with `frames`)
    inside sentences."""
    en = [(c, t, truth(c, t)) for t in todays for c in en_cases()]
    zh = [(c, t, zh_truth(c, t)) for t in todays for c in zh_cases()]
    return {
        "en_relative": judge(en, EN_FRAMES if frames else ()),
        "zh_relative": judge(zh, ZH_FRAMES if frames else ()),
    }
