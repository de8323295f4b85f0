"""Value readers that never misread: each input below is read right or not at all, with
2024-05-01 (a Wednesday) as today. Pure: no models."""

from __future__ import annotations

from datetime import date

import pytest

from shadowswitch.engines.local.arguments.extract import extract
from shadowswitch.engines.local.arguments.params import stem
from shadowswitch.engines.local.language import unreadable
from shadowswitch.engines.local.languages.en.dates import date_spans
from shadowswitch.engines.local.languages.zh.dates import zh_date_spans
from shadowswitch.engines.local.languages.zh.numerals import numeral_spans
from shadowswitch.engines.local.languages.zh.spans import chinese_spans

WEDNESDAY = date(2024, 5, 1)


def zh_values(text: str) -> set[str]:
    return {value for _, value, _, _ in zh_date_spans(text, WEDNESDAY)}


def en_values(text: str) -> set[str]:
    return {value for _, value, _, _ in date_spans(text, WEDNESDAY)}


def test_the_wednesday_after_next_is_two_weeks_on() -> None:
    assert "2024-05-15" in zh_values("下下周三")
    assert "2024-05-08" not in zh_values("下下周三")
    assert "2024-04-17" in zh_values("上上周三")


def test_a_numeral_ends_where_a_second_digit_starts_a_count() -> None:
    found = {(value, start, end) for _, value, start, end, _ in numeral_spans("三千五一晚")}
    assert (3500, 0, 3) in found and (1, 3, 4) in found
    assert all(value in (3500, 1) for value, _, _ in found)
    assert {v for _, v, *_ in numeral_spans("一千零五")} == {1005}


def test_twelve_at_night_is_midnight() -> None:
    assert "00:00" in zh_values("晚上十二点") and "12:00" not in zh_values("晚上十二点")
    assert "12:00" in zh_values("中午十二点")
    # midnight at the end of tomorrow is the day after's first minute
    assert "2024-05-03T00:00:00" in zh_values("明天晚上十二点")
    assert "2024-05-02T00:00:00" not in zh_values("明天晚上十二点")


@pytest.mark.parametrize(
    ("text", "moment"),
    [
        ("明晚八点", "2024-05-02T20:00:00"),
        ("今晚七点半", "2024-05-01T19:30:00"),
        ("明早九点", "2024-05-02T09:00:00"),
    ],
)
def test_tonight_and_tomorrow_night_keep_their_day(text: str, moment: str) -> None:
    assert moment in zh_values(text)


@pytest.mark.parametrize(
    ("text", "value"), [("twenty five", 25), ("three hundred", 300), ("forty-two", 42), ("a dozen", 12)]
)
def test_english_number_words_are_read_as_one_number(text: str, value: int) -> None:
    read = {s.value for s in extract(f"I need {text} tickets") if s.kind in ("number", "wordnum")}
    assert read == {value}


@pytest.mark.parametrize("text", ["double my quota", "a double room", "triple the budget"])
def test_a_multiplier_or_a_kind_is_no_quantity(text: str) -> None:
    # "double" multiplies a value not given, or names a kind: read as 2 it was served as a quota
    assert not [s for s in extract(f"Please {text}") if s.kind in ("number", "wordnum")]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("tomorrow", "2024-05-02"),
        ("today", "2024-05-01"),
        ("next Monday", "2024-05-06"),
        ("next Wednesday", "2024-05-08"),
        ("last Friday", "2024-04-26"),
        ("this Friday", "2024-05-03"),
        ("on Friday", "2024-05-03"),
        ("in two weeks", "2024-05-15"),
        ("in 3 days", "2024-05-04"),
        ("tomorrow at 3pm", "2024-05-02T15:00:00"),
    ],
)
def test_english_relative_dates(text: str, value: str) -> None:
    assert value in en_values(f"Book it {text} please")


@pytest.mark.parametrize("text", ["next Friday", "this Monday", "last Monday", "on Wednesday"])
def test_a_weekday_read_two_ways_is_not_read(text: str) -> None:
    """On a Wednesday "next Friday" is the 3rd to some and the 10th to others."""
    assert not any(value.startswith("2024") for value in en_values(f"Book it {text} please"))


@pytest.mark.parametrize(
    ("plural", "singular"),
    [
        ("movies", "movie"),
        ("series", "series"),
        ("news", "news"),
        ("statuses", "status"),
        ("cities", "city"),
        ("names", "name"),
        ("boxes", "box"),
    ],
)
def test_a_plural_meets_its_singular(plural: str, singular: str) -> None:
    assert stem(plural) == stem(singular) == singular


def test_kana_marks_and_iteration_marks_are_readable() -> None:
    assert not unreadable("コーヒー")
    assert not unreadable("人々")
    assert unreadable("ᏣᎳᎩ ᎦᏬᏂᎯᏍᏗ")  # Cherokee


def test_a_name_before_a_verb_is_offered_alone() -> None:
    texts = {s.text for s in chinese_spans("给张伟发邮件说会议改到下午三点", lambda _: None, WEDNESDAY)}
    assert "张伟" in texts


def test_a_counted_thing_is_not_joined_to_the_verb_after_it() -> None:
    texts = {s.text for s in chinese_spans("我想在马德里租一辆车住三晚", lambda _: None, WEDNESDAY)}
    assert "辆车住" not in texts and "车住" not in texts


def test_no_relative_day_where_the_text_writes_its_own_day() -> None:
    """BFCL-like requests say which day today is: the clock's tomorrow would be a misread."""
    for text in ("weather next Monday? today is 2023.3.1", "Today is Monday April 3rd, what about tomorrow"):
        assert not any(v.startswith("2024") for v in en_values(text)), text


def test_a_relative_day_hides_no_words_as_written() -> None:
    spans = extract("Book a car next Monday please", today=WEDNESDAY)
    assert ("next Monday", "2024-05-06") in {(s.text, s.value) for s in spans}
    assert "Monday" in {s.text for s in spans if s.kind == "name"}
