"""Find dates and times in text and offer them both as written and in ISO form; relative days
("tomorrow", "next Friday", "two weeks from today") in ISO form from today's date (`relative`)."""

from __future__ import annotations

import re
from datetime import date, datetime

from shadowswitch.engines.local.languages.en.relative import relative_spans


def _words(text: str) -> list[str]:
    return text.split()


MONTHS = {
    m: i + 1
    for i, m in enumerate(
        _words("january february march april may june july august september october november december")
    )
}
MONTH_RE = (
    r"(?P<mon>"
    + "|".join(sorted(MONTHS, key=len, reverse=True))
    + r"|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?"
)
DAY_RE = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
YEAR_RE = r"(?P<year>\d{4})"
PATTERNS = [
    re.compile(r"\b(?P<year>\d{4})-(?P<m>\d{1,2})-(?P<day>\d{1,2})\b"),
    re.compile(r"\b(?P<m>\d{1,2})/(?P<day>\d{1,2})/(?P<year>\d{4})\b"),
    re.compile(r"\b(?P<year>\d{4})\.(?P<m>\d{1,2})\.(?P<day>\d{1,2})\b"),
    re.compile(rf"\b{MONTH_RE}\s+{DAY_RE}(?:,?\s+{YEAR_RE})?\b", re.IGNORECASE),
    re.compile(rf"\b{DAY_RE}(?:\s+of)?\s+{MONTH_RE}(?:,?\s+{YEAR_RE})?\b", re.IGNORECASE),
    re.compile(rf"\b{MONTH_RE}\s+{YEAR_RE}\b", re.IGNORECASE),
]
TIME_RE = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)|\b(\d{1,2}):(\d{2})\b", re.IGNORECASE)


DateSpan = tuple[str, str, int, int]  # surface, value, start, end


STATED_TODAY = re.compile(r"\b(?:today|now) is\b|\bcurrent date\b", re.IGNORECASE)


def date_spans(text: str, today: date | None = None, relative: bool = True) -> list[DateSpan]:
    """Dates and times as written and in ISO form; with `relative`, relative days too, unless the
    text writes a day of its own ("today is 2023.3.1", "on March 3, 2024"): then which day
    "tomorrow" is from is unsure, and none is read."""
    out: list[DateSpan] = []
    days: list[tuple[str, int, int]] = []  # ISO day, start, end: to join with a time after it
    for pattern in PATTERNS:
        for m in pattern.finditer(text):
            out.append((m.group(0), m.group(0), m.start(), m.end()))
            iso = _iso(m)
            if iso and iso != m.group(0):
                out.append((m.group(0), iso, m.start(), m.end()))
            if iso and len(iso) == 10:
                days.append((iso, m.start(), m.end()))
    if relative and not days and not STATED_TODAY.search(text):
        for surface, day, start, end in relative_spans(text, today or date.today()):
            out.append((surface, day, start, end))  # as written it stays a phrase ("tomorrow")
            days.append((day, start, end))
    for m in TIME_RE.finditer(text):
        out.append((m.group(0), m.group(0), m.start(), m.end()))
        hhmm = _hhmm(m)
        if hhmm and hhmm != m.group(0):
            out.append((m.group(0), hhmm, m.start(), m.end()))
        for iso, start, end in days:  # "March 19, 2024 at 12:00 PM" → 2024-03-19T12:00:00
            if hhmm and end <= m.start() and DAY_TIME_GAP.fullmatch(text[end : m.start()]):
                out.append((text[start : m.end()], f"{iso}T{hhmm}:00", start, m.end()))
    return out


DAY_TIME_GAP = re.compile(r"[\s,]*(?:at\s*)?", re.IGNORECASE)

# A date format a parameter's description asks for → strftime; ISO is the default.
FORMATS = {
    "MM/DD/YYYY": "%m/%d/%Y",
    "DD/MM/YYYY": "%d/%m/%Y",
    "MM-DD-YYYY": "%m-%d-%Y",
    "DD-MM-YYYY": "%d-%m-%Y",
    "YYYY/MM/DD": "%Y/%m/%d",
    "YYYY-MM-DD HH:MM:SS": "%Y-%m-%d %H:%M:%S",
    "YYYY-MM-DD HH:MM": "%Y-%m-%d %H:%M",
    "YYYY-MM-DD": "%Y-%m-%d",
}


def asked_format(description: str) -> str | None:
    """The first date format named in a description ("in the format MM/DD/YYYY")."""
    upper = description.upper()
    hits = [(upper.find(k), -len(k), f) for k, f in FORMATS.items() if k in upper]
    return min(hits)[2] if hits else None


def in_format(iso: str, fmt: str) -> str | None:
    """An ISO day or day-and-time written in `fmt`; None when the value lacks what it needs."""
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return None
    if "%H" in fmt and "T" not in iso:
        return None
    return moment.strftime(fmt)


def _iso(m: re.Match[str]) -> str | None:
    groups = m.groupdict()
    month = int(groups["m"]) if groups.get("m") else MONTHS.get(_month_key(groups.get("mon")) or "")
    year, day = groups.get("year"), groups.get("day")
    if month is not None and groups.get("m") and day and month > 12 >= int(day):  # 22/3/2024: day first
        month, day = int(day), str(month)
    if not month or not 1 <= month <= 12:
        return None
    if day and not 1 <= int(day) <= 31:
        return None
    if year and day:
        return f"{year}-{month:02d}-{int(day):02d}"
    if year:
        return f"{year}-{month:02d}"
    return None


def _month_key(name: str | None) -> str | None:
    if not name:
        return None
    name = name.lower().rstrip(".")
    return next((m for m in MONTHS if m.startswith(name[:3])), None)


def _hhmm(m: re.Match[str]) -> str | None:
    if m.group(4):
        return f"{int(m.group(4)):02d}:{m.group(5)}"
    hour, minute, half = int(m.group(1)), int(m.group(2) or 0), m.group(3).lower()[0]
    if not 1 <= hour <= 12:
        return None
    hour = hour % 12 + (12 if half == "p" else 0)
    return f"{hour:02d}:{minute:02d}"
