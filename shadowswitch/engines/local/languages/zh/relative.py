"""Counted relative days in Chinese, read exactly or not at all: 两周后 (today + 14 days), 三天前,
一个月后, 两年后 and 下个月三号 (the 3rd of next month). A month that lacks the day (一个月后 on
January 31st) gives none; so do 下周 (next week), 这个周末 (this weekend) and 下个月 alone, which
are no one day, and 半个月后 or 十几天后, whose count is not a number.
"""

from __future__ import annotations

import re
from datetime import date

from shadowswitch.engines.local.languages.base import later
from shadowswitch.engines.local.languages.zh.numerals import parse_numeral

DateSpan = tuple[str, str, int, int]  # surface, value, start, end

DIGITS = "零〇一二两三四五六七八九十百"
COUNT = rf"(?<![\d{DIGITS}])(?P<n>\d{{1,3}}|[{DIGITS}]{{1,4}})"
DAYS_PER = {"天": 1, "日": 1, "周": 7, "星期": 7, "礼拜": 7}
MONTHS_PER = {"月": 1, "年": 12}
# 个 goes before 月 and may before 星期 and 礼拜: 三个月后, 两个星期后
UNIT = r"(?P<unit>天|日|周|个?星期|个?礼拜|个月|年)"
AGO = {"以后": 1, "之后": 1, "后": 1, "以前": -1, "之前": -1, "前": -1}
COUNTED_RE = re.compile(rf"{COUNT}{UNIT}(?P<dir>以后|之后|后|以前|之前|前)")
MONTHS_ON = {"上上": -2, "上": -1, "这": 0, "本": 0, "下": 1, "下下": 2}
MONTH_DAY_RE = re.compile(
    r"(?P<which>上上|下下|上|下|这|本)个?月(?P<day>\d{1,2}|[一二三四五六七八九十]{1,3})[号日]"
)


def counted_spans(text: str, today: date) -> list[DateSpan]:
    """两周后, 三天前, 下个月三号 in ISO form; a phrase any part of which is unsure gives none."""
    out: list[DateSpan] = []
    for m in COUNTED_RE.finditer(text):
        n = _number(m["n"])
        unit = m["unit"].removeprefix("个")
        if n is not None:
            day = _plus(today, n * AGO[m["dir"]], unit)
            if day is not None:
                out.append((m.group(0), day.isoformat(), *m.span()))
    for m in MONTH_DAY_RE.finditer(text):
        n = _number(m["day"])
        first = _plus(today.replace(day=1), MONTHS_ON[m["which"]], "月")
        if n is not None and first is not None:
            try:
                out.append((m.group(0), first.replace(day=n).isoformat(), *m.span()))
            except ValueError:
                continue  # 下个月三十一号 in a month of 30 days: no day
    return out


def _number(text: str) -> int | None:
    """A count: digits, or a Chinese numeral; 二三 or 两三 (two or three) is none."""
    if text.isdigit():
        return int(text)
    if len(text) > 1 and not set(text) & set("十百"):
        return None
    return parse_numeral(text)


def _plus(day: date, n: int, unit: str) -> date | None:
    if unit in DAYS_PER:
        return later(day, days=n * DAYS_PER[unit])
    return later(day, months=n * MONTHS_PER[unit])
