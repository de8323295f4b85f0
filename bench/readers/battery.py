"""`shadowswitch bench readers`: the value readers against oracles (dev dependencies only).

Per reader, cases tried, read (the right value at the phrase's position), missed (no value
there) and misread (a wrong value over any part of the phrase), and the first misreads:
- `zh_numbers`: every integer 0–20,000 and 20,000 random ones below 10^9, written in Chinese by
  cn2an (MIT) and read back by languages.zh.numerals;
- `en_numbers`: integers written in words by our own writer (bench/readers/words.py,
  in num2words's style)
  and read back by languages.en.numbers;
- `en_dates`: relative-day phrases over a grid of todays, against dateparser (BSD);
- `sentences`: those phrases inside sentences with other numbers and dates around them, read by
  the whole extraction (arguments.extract);
- `en_relative`, `zh_relative`: counted relative days ("two weeks from today", "a week on
  Monday", 两周后, 下个月三号) and phrases that name no one day, alone and in sentences, against
  dateparser (bench/readers/relative.py).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.readers.relative import relative_battery
from bench.readers.tally import Tally
from bench.readers.words import number_words


def zh_numbers(numbers: Iterable[int]) -> Tally:
    import cn2an

    from shadowswitch.engines.local.languages.zh.numerals import numeral_spans

    tally = Tally()
    for n in numbers:
        text = str(cn2an.an2cn(n))
        found = [(v, s, e) for _, v, s, e, pct in numeral_spans(text) if not pct]
        tally.judge(text, n, 0, len(text), found)
    return tally


def en_numbers(numbers: Iterable[int], commas: bool = True) -> Tally:
    """`commas`: as num2words writes ("one thousand, nine hundred and five"), which the reader
    leaves unread (1905, or 1000 and 905?); without them, as people mostly type numbers."""
    from shadowswitch.engines.local.languages.en.numbers import word_number_spans

    tally = Tally()
    for n in numbers:
        text = number_words(n) if commas else number_words(n).replace(",", "")
        tally.judge(text, n, 0, len(text), [(v, s, e) for _, v, s, e in word_number_spans(text)])
    return tally


WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
COUNTS = ("a", "one", "two", "three", "five", "ten", "twenty one", "2", "3", "14")


def date_phrases() -> list[str]:
    """The grid of relative-day phrases dateparser is asked about."""
    out = ["today", "tomorrow", "yesterday", "the day after tomorrow", "the day before yesterday"]
    out += [f"{w} {d}" for w in ("next", "last", "this") for d in WEEKDAYS] + list(WEEKDAYS)
    out += [f"in {n} {u}" for n in COUNTS for u in ("day", "days", "week", "weeks")]
    return [p for p in out if not (p.startswith(("in a ", "in one ")) and p.endswith("s"))]


def oracle(phrase: str, today: date) -> str | None:
    """dateparser's day for `phrase` said on `today`; None where it reads none."""
    import dateparser

    base = datetime(today.year, today.month, today.day, 12)
    settings: Any = {"RELATIVE_BASE": base, "PREFER_DATES_FROM": "future"}
    found = dateparser.parse(phrase, languages=["en"], settings=settings)
    return found.date().isoformat() if found else None


def en_dates(todays: Iterable[date]) -> Tally:
    from shadowswitch.engines.local.languages.en.dates import date_spans

    tally = Tally()
    for today in todays:
        for phrase in date_phrases():
            truth = oracle(phrase, today)
            if truth is None:
                continue
            found = [(v, s, e) for _, v, s, e in date_spans(phrase, today) if v[:1].isdigit()]
            tally.judge(phrase, truth, 0, len(phrase), found)
    return tally


FRAMES = (
    "Book {x} for 3 people, budget 250 dollars",
    "On May 3, 2024 I said {x}; the order is 12",
    "Can you remind me {x} about the 2 invoices from 2023-11-04?",
    "{x} works, room 42, twenty guests",
)


def sentence(phrase: str, frame: str) -> tuple[str, int, int]:
    text = frame.format(x=phrase)
    start = text.index(phrase)
    return text, start, start + len(phrase)


def sentences(cases: Iterable[tuple[str, str, date, Any]]) -> Tally:
    """(phrase, frame, today, truth) read by the whole extraction on that day."""
    from shadowswitch.engines.local.arguments.extract import extract

    tally = Tally()
    for phrase, frame, today, truth in cases:
        text, start, end = sentence(phrase, frame)
        spans = extract(text, today=today)
        kinds = ("date",) if isinstance(truth, str) else ("number", "wordnum")
        found = [(s.value, s.start, s.end) for s in spans if s.kind in kinds and _typed(s.value, truth)]
        tally.judge(text, truth, start, end, found)
    return tally


def _typed(value: Any, truth: Any) -> bool:
    """A value of the truth's sort: an ISO day for a day, a number for a number."""
    if isinstance(truth, str):
        return isinstance(value, str) and value[:4].isdigit() and len(value) == 10
    return isinstance(value, int | float) and not isinstance(value, bool)


def todays(n: int, seed: int = 7) -> list[date]:
    rng = random.Random(seed)
    first = date(2024, 1, 1)
    return [first + timedelta(days=rng.randrange(3 * 366)) for _ in range(n)]


def battery(size: str = "full") -> dict[str, Any]:
    """Every reader's tally; `size` "full" is the whole battery, "quick" a sample of it."""
    rng = random.Random(34)
    full = size == "full"
    zh = list(range(20_001)) + [rng.randrange(10**9) for _ in range(20_000)] if full else range(0, 20_001, 97)
    en = list(range(10_001)) + [rng.randrange(10**9) for _ in range(5_000)] if full else range(0, 10_001, 89)
    days = todays(28 if full else 3)
    phrases = [(p, f, t, oracle(p, t)) for t in days[:7] for p in date_phrases() for f in FRAMES]
    numbers = [(number_words(n), f, days[0], n) for n in (25, 42, 99, 300, 1905) for f in FRAMES]
    return {
        "zh_numbers": zh_numbers(zh).summary(),
        "en_numbers": en_numbers(en).summary(),
        "en_numbers_no_commas": en_numbers(en, commas=False).summary(),
        "en_dates": en_dates(days).summary(),
        "sentences": sentences([c for c in phrases + numbers if c[3] is not None]).summary(),
        **relative_battery(days),
    }


def run_readers(out: Path, size: str = "full") -> dict[str, Any]:
    from bench.bfcl.results import git_commit, machine_info, write_results

    results = {"commit": git_commit(), "machine": machine_info(), "size": size, "summary": battery(size)}
    write_results(out, results)
    return results
