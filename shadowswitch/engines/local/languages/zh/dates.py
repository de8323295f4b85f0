"""Dates and times written in Chinese, offered as written and in ISO form: 2023年3月5日 →
2023-03-05, 今天/明天/后天, 下周一/这周五/星期三 and 两周后/下个月三号 (`relative`) → the day from
today's date, 晚上八点 → 20:00,
下午1:45 → 13:45, and a day with a time after it (明天晚上八点 → 2024-05-02T20:00:00).

A day without its year (3月5日) is offered as written only, as "March 5" is: which year is meant
the text does not say. Relative days are read against `today` (the clock's date by default): a
person saying 明天 means the clock's tomorrow.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from shadowswitch.engines.local.languages.base import table
from shadowswitch.engines.local.languages.zh.numerals import parse_numeral
from shadowswitch.engines.local.languages.zh.relative import counted_spans

_TABLE = table(__package__ or __name__, "dates")
DAYS: dict[str, int] = _TABLE["days"]  # relative days: offset from today
WEEKDAYS: dict[str, int] = _TABLE["weekdays"]
WEEKS: dict[str, int] = _TABLE["weeks"]  # 上周一, 这周五, 下周一
AFTERNOON: tuple[str, ...] = tuple(_TABLE["afternoon"])  # 晚上八点 → 20:00
MORNING: tuple[str, ...] = tuple(_TABLE["morning"])
NIGHT: frozenset[str] = frozenset(_TABLE["night"])  # 晚上十二点: the next day's 00:00
SMALL_HOURS: frozenset[str] = frozenset(_TABLE["small_hours"])  # 凌晨十二点: that day's 00:00

DateSpan = tuple[str, str, int, int]  # surface, value, start, end (as languages.en.dates.date_spans)

NUM = r"(?:\d{1,4}|[零〇一二两三四五六七八九十]{1,4})"
DAY_RE = re.compile(rf"(?:(?P<year>{NUM})年)?(?P<month>{NUM})月(?:(?P<day>{NUM})[日号])?")
RELATIVE_RE = re.compile("|".join(sorted(DAYS, key=len, reverse=True)))
WEEK = "|".join(sorted(WEEKS, key=len, reverse=True))  # 下下 before 下
# Not after a count or 每 (一周三次: three times a week; 每周三: every Wednesday, no one day), nor
# before a counter (周三次): those are no weekday, and an unsure reader reads nothing.
WEEKDAY_RE = re.compile(
    rf"(?:(?P<week>{WEEK})|(?<![零〇一二两三四五六七八九十几数每\d]))(?:个)?(?:周|星期|礼拜)"
    r"(?P<day>[一二三四五六日天])(?![次回遍趟])"
)
PARTS = "|".join((*AFTERNOON, *MORNING))
TIME_RE = re.compile(
    rf"(?P<part>{PARTS})?\s*(?:(?P<h>{NUM})[点时](?:(?P<half>半)|(?P<m>{NUM})分?)?|(?P<hh>\d{{1,2}}):(?P<mm>\d{{2}}))"
)
GAP = re.compile(r"[\s的,，]*(?:[^\s,，]{1,4}时间)?[\s的,，]*")  # "2023年11月1日伦敦时间晚上8点"


def zh_date_spans(text: str, today: date | None = None) -> list[DateSpan]:
    today = today or date.today()
    out: list[DateSpan] = []
    days: list[tuple[str, int, int]] = []
    for m in DAY_RE.finditer(text):
        out.append((m.group(0), m.group(0), m.start(), m.end()))
        iso = _iso(m["year"], m["month"], m["day"])
        if iso:
            out.append((m.group(0), iso, m.start(), m.end()))
            if len(iso) == 10:
                days.append((iso, m.start(), m.end()))
    counted = counted_spans(text, today)
    for surface, iso, start, end in counted:
        out += [(surface, surface, start, end), (surface, iso, start, end)]
        days.append((iso, start, end))
    for m in [*RELATIVE_RE.finditer(text), *WEEKDAY_RE.finditer(text)]:
        if any(start < m.end() and m.start() < end for _, _, start, end in counted):
            continue  # 后天 of 三天后天气: the count took it
        if m.re is RELATIVE_RE:
            iso = (today + timedelta(days=DAYS[m.group(0)])).isoformat()
        else:
            iso = _weekday(today, m["week"], WEEKDAYS[m["day"]]).isoformat()
        out += [(m.group(0), m.group(0), m.start(), m.end()), (m.group(0), iso, m.start(), m.end())]
        days.append((iso, m.start(), m.end()))
    for m in TIME_RE.finditer(text):
        hhmm = _hhmm(m)
        if hhmm is None:
            continue
        out += [(m.group(0), m.group(0), m.start(), m.end()), (m.group(0), hhmm, m.start(), m.end())]
        # midnight at the end of a day is the next day's: 明天晚上十二点 → 2024-05-03T00:00:00
        late = int(m["part"] in NIGHT and hhmm == "00:00")
        if m["part"] in DAYS:  # 明晚八点: the part of the day names its day
            day = today + timedelta(days=DAYS[m["part"]] + late)
            out.append((m.group(0), f"{day.isoformat()}T{hhmm}:00", m.start(), m.end()))
        for iso, start, end in days:  # 明天晚上八点 → 2024-05-02T20:00:00
            if end <= m.start() and GAP.fullmatch(text[end : m.start()]):
                day = date.fromisoformat(iso) + timedelta(days=late)
                out.append((text[start : m.end()], f"{day.isoformat()}T{hhmm}:00", start, m.end()))
    return out


def _number(text: str | None) -> int | None:
    if not text:
        return None
    return int(text) if text.isdigit() else parse_numeral(text)


def _iso(year: str | None, month: str, day: str | None) -> str | None:
    y, mo, d = _number(year), _number(month), _number(day)
    if mo is None or not 1 <= mo <= 12 or (d is not None and not 1 <= d <= 31):
        return None
    if y is None or y < 1000:
        return None
    return f"{y}-{mo:02d}-{d:02d}" if d is not None else f"{y}-{mo:02d}"


def _weekday(today: date, week: str | None, weekday: int) -> date:
    """下周一: Monday of next week; 这周五: Friday of this week; 周三 alone: the next Wednesday
    (today included)."""
    if week is None:
        return today + timedelta(days=(weekday - today.weekday()) % 7)
    monday = today - timedelta(days=today.weekday())
    return monday + timedelta(days=7 * WEEKS[week] + weekday)


def _hhmm(m: re.Match[str]) -> str | None:
    if m["hh"]:
        hour, minute = int(m["hh"]), int(m["mm"])
    else:
        hour, minute = _number(m["h"]) or 0, 30 if m["half"] else (_number(m["m"]) or 0)
        if m["h"] is None:
            return None
    if m["part"] in AFTERNOON and hour < 12:
        hour += 12
    elif hour == 12 and (m["part"] in NIGHT or m["part"] in SMALL_HOURS):
        hour = 0  # 晚上十二点, 凌晨十二点: midnight
    if not (0 <= hour <= 23 and 0 <= minute <= 59):
        return None
    return f"{hour:02d}:{minute:02d}"
