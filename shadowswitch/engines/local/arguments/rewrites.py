"""Deterministic rewrites of a grounded value into the form an agent's upstream writes it in.

The engine reads "Los Angeles" from the text; the agent's model writes `"Los Angeles, CA"`. A
rewrite named here maps the one to the other, and learning (`learning/transforms.py`) selects, per
tool and parameter, the rewrite that explains the upstream's values in its exemplars. A rewrite is
applied only to a value read from the conversation, and one that cannot produce a value for an
input returns None (the engine then abstains): it never writes a value the text does not hold.

Names: `identity`, `lower`, `upper`, `title`, `region` (a city with its state or country, from the
knowledge tables), `city` (the region dropped), `string` (a number as written), `number` (a numeric
string as a number), `list` (a value as a one-item list), `item` (a one-item list's value), and
the ones learned from the values themselves: `date:<pattern>` (an ISO date in the upstream's
format, e.g. `date:%m/%d/%Y`), `prefix:<affix>` and `suffix:<affix>` (a unit: `suffix: km`).
"""

from __future__ import annotations

import calendar
import datetime as dt
import itertools
import re
from collections.abc import Callable
from typing import Any

RegionOf = Callable[[str], str | None]  # "Los Angeles" → "Los Angeles, CA" (knowledge.places)

MAX_AFFIX = 6  # a unit or a sign ("%", " km", " USD"), not a word of the conversation
REGION = re.compile(r"^(.+?),\s*\S.*$")
NUMERIC = re.compile(r"^-?\d+(?:\.\d+)?$")
DATE_TOKEN = re.compile(r"\d+|[A-Za-z]+|[^\dA-Za-z]+")
DIRECTIVE = re.compile(r"%(-?[YymdBbAa%])")
MONTHS = list(calendar.month_name)[1:]
DAYS = list(calendar.day_name)
PARTS = ("Y", "y", "m", "-m", "d", "-d", "B", "b", "A", "a")
DAY, MONTH, YEAR = {"d", "-d"}, {"m", "-m", "B", "b"}, {"Y", "y"}


def rewrite(name: str, value: Any, region_of: RegionOf | None = None) -> Any:
    """`value` rewritten by the rewrite `name`; None when it cannot rewrite this value."""
    kind, _, arg = name.partition(":")
    if kind == "date":
        day = as_date(value)
        return None if day is None else format_date(day, arg)
    if kind in ("prefix", "suffix"):
        text = _written(value)
        if text is None or not arg:
            return None
        return arg + text if kind == "prefix" else text + arg
    fixed = FIXED.get(name)
    if fixed is None:
        return None
    return fixed(value, region_of)


def explaining(value: Any, upstream: Any, region_of: RegionOf | None = None) -> list[str]:
    """The rewrites that map the grounded `value` exactly to the upstream's (in `FIXED`'s order,
    then the learned shapes): what an exemplar keeps instead of either value."""
    names = [n for n in FIXED if _same(rewrite(n, value, region_of), upstream)]
    day = as_date(value)
    if day is not None and isinstance(upstream, str):
        names += [f"date:{p}" for p in date_patterns(day, upstream) if _same(format_date(day, p), upstream)]
    names += [n for n in _affixes(value, upstream) if _same(rewrite(n, value), upstream)]
    return names


def _same(got: Any, want: Any) -> bool:
    return got is not None and type(got) is type(want) and got == want


def _lower(value: Any, _: RegionOf | None) -> Any:
    return value.lower() if isinstance(value, str) else None


def _upper(value: Any, _: RegionOf | None) -> Any:
    return value.upper() if isinstance(value, str) else None


def _title(value: Any, _: RegionOf | None) -> Any:
    return value.title() if isinstance(value, str) else None


def _region(value: Any, region_of: RegionOf | None) -> Any:
    return region_of(value) if isinstance(value, str) and region_of is not None else None


def _city(value: Any, _: RegionOf | None) -> Any:
    m = REGION.match(value) if isinstance(value, str) else None
    return m.group(1).strip() if m else None


def _string(value: Any, _: RegionOf | None) -> Any:
    return _written(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _number(value: Any, _: RegionOf | None) -> Any:
    if not isinstance(value, str) or not NUMERIC.match(value.strip()):
        return None
    number = float(value)
    return int(number) if number.is_integer() and "." not in value else number


def _list(value: Any, _: RegionOf | None) -> Any:
    return [value] if value is not None and not isinstance(value, list) else None


def _item(value: Any, _: RegionOf | None) -> Any:
    return value[0] if isinstance(value, list) and len(value) == 1 else None


def _identity(value: Any, _: RegionOf | None) -> Any:
    return value


FIXED: dict[str, Callable[[Any, RegionOf | None], Any]] = {
    "identity": _identity,
    "lower": _lower,
    "upper": _upper,
    "title": _title,
    "region": _region,
    "city": _city,
    "string": _string,
    "number": _number,
    "list": _list,
    "item": _item,
}


def _written(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return str(int(value)) if float(value).is_integer() else str(value)
    return value if isinstance(value, str) and value else None


def _affixes(value: Any, upstream: Any) -> list[str]:
    """`prefix:`/`suffix:` the upstream adds to the value as written: a short unit or sign with no
    digit and no comma (", CA" is a region, which only the tables may add)."""
    text = _written(value)
    if text is None or not isinstance(upstream, str) or upstream == text:
        return []
    out = []
    if upstream.startswith(text):
        out.append(("suffix", upstream[len(text) :]))
    if upstream.endswith(text):
        out.append(("prefix", upstream[: len(upstream) - len(text)]))
    return [
        f"{kind}:{affix}"
        for kind, affix in out
        if 0 < len(affix) <= MAX_AFFIX and affix.strip() and not re.search(r"[\d,]", affix)
    ]


def as_date(value: Any) -> dt.date | None:
    """An ISO date ("2026-03-05"), as the extractors write the dates they read; else None."""
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        return None


def format_date(day: dt.date, pattern: str) -> str | None:
    """`pattern`'s directives (%Y %y %m %-m %d %-d %B %b %A %a %%) filled in; None for another."""
    values = {
        "Y": f"{day.year:04d}",
        "y": f"{day.year % 100:02d}",
        "m": f"{day.month:02d}",
        "-m": str(day.month),
        "d": f"{day.day:02d}",
        "-d": str(day.day),
        "B": MONTHS[day.month - 1],
        "b": MONTHS[day.month - 1][:3],
        "A": DAYS[day.weekday()],
        "a": DAYS[day.weekday()][:3],
        "%": "%",
    }
    if "%" in DIRECTIVE.sub("", pattern):
        return None  # a directive this formatter does not know
    return DIRECTIVE.sub(lambda m: values[m.group(1)], pattern)


def date_patterns(day: dt.date, written: str, limit: int = 8) -> list[str]:
    """The patterns that write `day` as `written`: each run of digits or letters read as a part of
    the date (several readings where, say, the day and the month are both 03), separators kept.
    A pattern names the day and the month once each (the year at most once); any other run of
    digits or letters (a time, a word) gives none."""
    options: list[list[str]] = []
    for token in DATE_TOKEN.findall(written):
        if token[0].isalnum():
            kinds = [k for k in PARTS if _part(day, k) == token]
            if not kinds:
                return []
            options.append([f"%{k}" for k in kinds])
        else:
            options.append([token.replace("%", "%%")])
    out = []
    for combo in itertools.islice(itertools.product(*options), limit * 4):
        used = [m.group(1) for m in DIRECTIVE.finditer("".join(combo)) if m.group(1) != "%"]
        once = len(used) == len(set(used)) and len(YEAR & set(used)) <= 1
        if once and len(DAY & set(used)) == 1 and len(MONTH & set(used)) == 1:
            out.append("".join(combo))
    return out[:limit]


def _part(day: dt.date, kind: str) -> str | None:
    return format_date(day, f"%{kind}")
