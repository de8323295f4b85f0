"""Numbers written in Chinese: numerals (两 → 2, 十二 → 12, 三千五 → 3500, 一万五 → 15000) and
Arabic numbers with a Chinese scale (1.5万 → 15000, 3千 → 3000), also percentages (百分之二十).

Arabic numbers alone are read by `arguments.extract.numbers`, whose patterns let a Chinese character touch
them ("3晚", "最多10个").
"""

from __future__ import annotations

import itertools
import re

from shadowswitch.engines.local.languages.base import table

_TABLE = table(__package__ or __name__, "numerals")
DIGITS: dict[str, int] = _TABLE["digits"]
UNITS: dict[str, int] = _TABLE["units"]
BIG_UNITS: dict[str, int] = _TABLE["big_units"]
UPPER_DIGITS: dict[str, int] = _TABLE["upper_digits"]
NOT_NUMBERS: tuple[str, ...] = tuple(_TABLE["not_numbers"])  # "一" in these is no number: 查一下, 一起

NUMERAL_CHARS = "".join([*DIGITS, *UNITS, *BIG_UNITS, *UPPER_DIGITS, "万亿"])
NUMERAL_RE = re.compile(f"(?P<pct>百分之)?(?P<num>[{NUMERAL_CHARS}]+)")
SCALED_RE = re.compile(r"(?<![\d.])(?P<num>\d+(?:\.\d+)?)\s?(?P<scale>[十百千万亿])")
SCALE = {"十": 10, "百": 100, "千": 1000, "万": 10_000, "亿": 100_000_000}

NumberSpan = tuple[str, float | int, int, int, bool]  # surface, value, start, end, percent


def parse_numeral(text: str) -> int | None:
    """The value of a Chinese numeral; None when it is not one ("百", a lone unit, is 100)."""
    chars = [c for c in text]
    values = {**DIGITS, **{k: v for k, v in UPPER_DIGITS.items() if v < 10}}
    units = {**UNITS, "拾": 10, "佰": 100, "仟": 1000}
    if len(chars) > 1 and all(c in values for c in chars):  # 二零二三: digit by digit
        return int("".join(str(values[c]) for c in chars))
    total = section = 0
    digit: int | None = None
    last_unit, zero = 0, False
    for c in chars:
        if c in values:
            if digit:  # 三千五一: a second digit after one is no part of this numeral
                return None
            zero = zero or values[c] == 0
            digit = values[c]
        elif c in units:
            section += (1 if digit is None else digit) * units[c]
            digit, last_unit, zero = None, units[c], False
        elif c in BIG_UNITS:
            section += digit or 0
            total += (section or 1) * BIG_UNITS[c]
            section, digit, last_unit, zero = 0, None, BIG_UNITS[c], False
        else:
            return None
    if digit is not None:
        # 三千五 is 3500 and 一万五 15000: a digit after a unit without 零 counts a tenth of it.
        section += digit * last_unit // 10 if last_unit >= 100 and not zero else digit
    return total + section


def _in_word(text: str, at: int) -> bool:
    return any(text.startswith(w, i) for w in NOT_NUMBERS for i in range(max(0, at - 1), at + 1))


def pieces(surface: str) -> list[tuple[int, str]]:
    """A run of numeral characters cut where a digit follows a digit other than 零: 三千五一晚 is
    3500 and then 一晚 (one night), not 3100. A run of digits alone (二零二三) is one number."""
    digits = {**DIGITS, **{k: v for k, v in UPPER_DIGITS.items() if v < 10}}
    if all(c in digits for c in surface):
        return [(0, surface)]
    cuts = [i for i in range(1, len(surface)) if surface[i] in digits and digits.get(surface[i - 1], 0)]
    bounds = [0, *cuts, len(surface)]
    return [(a, surface[a:b]) for a, b in itertools.pairwise(bounds)]


def numeral_spans(text: str) -> list[NumberSpan]:
    out: list[NumberSpan] = []
    for m in NUMERAL_RE.finditer(text):
        for offset, surface in pieces(m["num"]):
            start = m.start("num") + offset
            if surface in "一万" and _in_word(text, start):  # 一下, 一起, 万一: no number
                continue
            if surface[0] in "百千万亿":
                continue  # a numeral starts with a digit or 十: 百分比, 千万别, and 1.5万's 万 (read below)
            value = parse_numeral(surface)
            if value is None:
                continue
            end = start + len(surface)
            if m["pct"] and offset == 0:
                out.append((text[m.start() : end], value / 100, m.start(), end, True))
            out.append((surface, value, start, end, False))
    for m in SCALED_RE.finditer(text):
        raw = float(m["num"]) * SCALE[m["scale"]]
        out.append((m.group(0), int(raw) if raw.is_integer() else raw, m.start(), m.end(), False))
    return out
