"""Find dates and times in text and offer them both as written and in ISO form."""

from __future__ import annotations

import re


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
    re.compile(rf"\b{MONTH_RE}\s+{DAY_RE}(?:,?\s+{YEAR_RE})?\b", re.IGNORECASE),
    re.compile(rf"\b{DAY_RE}(?:\s+of)?\s+{MONTH_RE}(?:,?\s+{YEAR_RE})?\b", re.IGNORECASE),
    re.compile(rf"\b{MONTH_RE}\s+{YEAR_RE}\b", re.IGNORECASE),
]
TIME_RE = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)|\b(\d{1,2}):(\d{2})\b",
                     re.IGNORECASE)  # fmt: skip


DateSpan = tuple[str, str, int, int]  # surface, value, start, end


def date_spans(text: str) -> list[DateSpan]:
    out: list[DateSpan] = []
    for pattern in PATTERNS:
        for m in pattern.finditer(text):
            out.append((m.group(0), m.group(0), m.start(), m.end()))
            iso = _iso(m)
            if iso and iso != m.group(0):
                out.append((m.group(0), iso, m.start(), m.end()))
    for m in TIME_RE.finditer(text):
        out.append((m.group(0), m.group(0), m.start(), m.end()))
        hhmm = _hhmm(m)
        if hhmm and hhmm != m.group(0):
            out.append((m.group(0), hhmm, m.start(), m.end()))
    return out


def _iso(m: re.Match[str]) -> str | None:
    groups = m.groupdict()
    month = int(groups["m"]) if groups.get("m") else MONTHS.get(_month_key(groups.get("mon")) or "")
    if not month or not 1 <= month <= 12:
        return None
    year, day = groups.get("year"), groups.get("day")
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
