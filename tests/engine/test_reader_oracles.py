"""The value readers against oracles, on samples (`shadowswitch bench readers` runs the whole
battery): right value at the right place, or none; never a wrong one. Pure: no models."""

from __future__ import annotations

import random
from datetime import date, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from bench.readers.battery import FRAMES, date_phrases, en_dates, en_numbers, oracle, sentences, zh_numbers
from bench.readers.relative import (
    EN_FRAMES,
    ZH_FRAMES,
    en_cases,
    judge,
    truth,
    zh_cases,
    zh_truth,
)
from bench.readers.words import number_words
from shadowswitch.engines.local.arguments.extract import extract

SAMPLE = random.Random(5)


def test_chinese_numerals_written_by_cn2an_read_back() -> None:
    tally = zh_numbers([*range(0, 20_001, 61), *(SAMPLE.randrange(10**9) for _ in range(300))])
    assert tally.misread == 0 and tally.missed == 0, tally.examples


def test_english_number_words_written_out_read_back_or_not_at_all() -> None:
    numbers = [*range(0, 10_001, 53), *(SAMPLE.randrange(10**9) for _ in range(100))]
    assert en_numbers(numbers).misread == 0
    plain = en_numbers(numbers, commas=False)
    assert plain.misread == 0 and plain.missed == 0, plain.examples


def test_relative_days_agree_with_dateparser_or_are_not_read() -> None:
    tally = en_dates([date(2024, 5, 1), date(2025, 2, 27)])
    assert tally.misread == 0, tally.examples
    assert tally.read > tally.tried * 0.8  # only the phrases read two ways are left


DAYS = st.dates(min_value=date(2023, 1, 1), max_value=date(2027, 12, 31))


@settings(max_examples=30, deadline=None)
@given(phrase=st.sampled_from(date_phrases()), frame=st.sampled_from(FRAMES), today=DAYS)
def test_a_relative_day_in_a_sentence_is_read_right_or_not_at_all(
    phrase: str, frame: str, today: date
) -> None:
    truth = oracle(phrase, today)
    if truth is None:
        return
    tally = sentences([(phrase, frame, today, truth)])
    assert tally.misread == 0, tally.examples


@settings(max_examples=40, deadline=None)
@given(n=st.integers(min_value=0, max_value=999_999), frame=st.sampled_from(FRAMES))
def test_a_number_in_words_in_a_sentence_is_read_right_or_not_at_all(n: int, frame: str) -> None:
    tally = sentences([(number_words(n), frame, date(2024, 5, 1) + timedelta(days=n % 7), n)])
    assert tally.misread == 0, tally.examples


def test_two_weeks_from_today_is_today_plus_fourteen_days_never_today() -> None:
    today = date(2026, 12, 5)
    spans = extract("two weeks from today works for the meeting", today=today)
    days = {s.value for s in spans if s.kind == "date" and str(s.value)[:4].isdigit()}
    assert days == {"2026-12-19"}


def test_relative_days_counted_from_a_day_agree_with_dateparser_or_are_not_read() -> None:
    days = [date(2024, 1, 31), date(2024, 2, 29), date(2026, 12, 5)]  # month ends, a leap day
    for cases, truth_of in ((en_cases(), truth), (zh_cases(), zh_truth)):
        sample = [c for i, c in enumerate(cases) if i % 4 == 0 or c.family == "no one day"]
        tally = judge([(c, t, truth_of(c, t)) for t in days for c in sample], ())
        assert tally["total"]["misread"] == 0, tally["misread_examples"]
        no_one_day = tally["families"]["no one day"]
        assert no_one_day["read"] == 0  # "next week", 下周: no one day to read
        # the rest unread only where a month lacks the day, or "Friday" said on a Friday
        readable = tally["total"]["cases"] - no_one_day["cases"]
        assert tally["total"]["read"] > 0.8 * readable, tally["families"]


LANGUAGES = {"en": (en_cases(), EN_FRAMES, truth), "zh": (zh_cases(), ZH_FRAMES, zh_truth)}


@settings(max_examples=60, deadline=None)
@given(data=st.data(), language=st.sampled_from(sorted(LANGUAGES)), today=DAYS)
def test_a_counted_relative_day_in_a_sentence_is_read_right_or_not_at_all(
    data: st.DataObject, language: str, today: date
) -> None:
    cases, frames, truth_of = LANGUAGES[language]
    case, frame = data.draw(st.sampled_from(cases)), data.draw(st.sampled_from(frames))
    tally = judge([(case, today, truth_of(case, today))], (frame,))
    assert tally["total"]["misread"] == 0, tally["misread_examples"]
