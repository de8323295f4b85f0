"""Numbers written in English words: a run of cardinals is one number ("twenty five" → 25, "three
hundred" → 300, "forty-two" → 42), read by text2num (MIT); a word alone is read from the table
(tables/words.json `numbers`), which also knows "dozen", "once", "twice" and ordinals. It does
not read "double" or "triple": they multiply ("double my quota") or name a kind ("a double
room"), and read as 2 or 3 they were served as a quantity the user never gave.

A run text2num cannot read ("five twenty": a time? two numbers?) gives no number at all: a
number read wrong is served wrong, one not read is only missed.
"""

from __future__ import annotations

import re

from text_to_num import text2num

from shadowswitch.engines.local.languages.en.words import CARDINALS, WORD_NUMBERS

_CARDINAL = "(?:" + "|".join(sorted(CARDINALS, key=len, reverse=True)) + ")"
# "and" joins only after a scale: "one hundred and five", but "two and five" are two numbers.
RUN_RE = re.compile(
    rf"\b{_CARDINAL}(?:(?:[\s-]+|(?:(?<=hundred)|(?<=thousand)|(?<=million)|(?<=billion))\s+and\s+){_CARDINAL})*\b",
    re.IGNORECASE,
)
WORD_RE = re.compile(r"\b(" + "|".join(WORD_NUMBERS) + r")\b", re.IGNORECASE)

ENDS_IN_NUMBER = re.compile(WORD_RE.pattern + "$", re.IGNORECASE)

WordNumber = tuple[str, int, int, int]  # surface, value, start, end


def word_number_spans(text: str) -> list[WordNumber]:
    out: list[WordNumber] = []
    runs: list[tuple[int, int]] = []
    matches = list(RUN_RE.finditer(text))
    for i, m in enumerate(matches):
        if _comma_joined(text, matches, i):
            runs.append(m.span())  # "one thousand, nine hundred": 1900, or 1000 and 900? unsure
            continue
        if not re.search(r"[\s-]", m.group(0)):
            continue  # one word: the table reads it below
        runs.append(m.span())
        try:
            value = text2num(m.group(0).lower(), "en")
        except ValueError:
            continue  # unsure: no number
        out.append((m.group(0), value, m.start(), m.end()))
    for m in WORD_RE.finditer(text):
        if not any(s <= m.start() and m.end() <= e for s, e in runs) and not _hyphened(text, *m.span()):
            out.append((m.group(0), WORD_NUMBERS[m.group(1).lower()], m.start(), m.end()))
    return out


SCALE_END = re.compile(r"(?:thousand|million|billion)$", re.IGNORECASE)


def _comma_joined(text: str, runs: list[re.Match[str]], i: int) -> bool:
    """A run after a scale and a comma, or before it: "one thousand, nine hundred and five"."""

    def joined(a: re.Match[str], b: re.Match[str]) -> bool:
        return (
            bool(SCALE_END.search(a.group(0)))
            and re.fullmatch(r",\s*", text[a.end() : b.start()]) is not None
        )

    return (i > 0 and joined(runs[i - 1], runs[i])) or (i + 1 < len(runs) and joined(runs[i], runs[i + 1]))


def _hyphened(text: str, start: int, end: int) -> bool:
    """Part of number words joined by a hyphen that no run reads ("twenty-first"): neither part
    alone is the number."""
    before = text[start - 1 : start] == "-" and ENDS_IN_NUMBER.search(text, 0, start - 1) is not None
    after = text[end : end + 1] == "-" and WORD_RE.match(text, end + 1) is not None
    return before or after
