"""Reading Chinese: numerals, dates, phrases and places, and which encoder reads a request (pure)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
import torch

from shadowswitch.engines.local.arguments.extract import extract
from shadowswitch.engines.local.arguments.features import TextIndex, cue_before, labelled
from shadowswitch.engines.local.arguments.params import params_of
from shadowswitch.engines.local.choice.scoring import sharpen
from shadowswitch.engines.local.language import is_multilingual, unreadable
from shadowswitch.engines.local.languages.zh.dates import zh_date_spans
from shadowswitch.engines.local.languages.zh.numerals import numeral_spans, parse_numeral
from shadowswitch.engines.local.languages.zh.spans import chinese_spans, offered, wants_english
from shadowswitch.engines.local.runtime.bridge import LanguageShift, share

WEDNESDAY = date(2024, 5, 1)


@pytest.mark.parametrize(
    ("numeral", "value"),
    [
        ("两", 2),
        ("十二", 12),
        ("二十", 20),
        ("一百零八", 108),
        ("三千五", 3500),
        ("三千零五", 3005),
        ("两百五", 250),
        ("一万五", 15000),
        ("一千二百三十四", 1234),
        ("二零二三", 2023),
        ("一亿", 100_000_000),
    ],
)
def test_chinese_numerals(numeral: str, value: int) -> None:
    assert parse_numeral(numeral) == value


def test_numbers_in_a_sentence_with_their_scale_and_not_in_words_that_hold_yi() -> None:
    found = {(s, v) for s, v, *_ in numeral_spans("帮我查一下：两晚，预算1.5万，一起去，百分之二十")}
    assert {("两", 2), ("1.5万", 15000), ("百分之二十", 0.2), ("二十", 20)} <= found
    assert not any(v == 1 for _, v in found)  # 查一下, 一起: no number
    assert not any(s == "万" for s, _ in found)  # the scale of 1.5万, not ten thousand


@pytest.mark.parametrize("text", ["捕获百分比设为", "千万别忘了", "万一下雨"])
def test_a_scale_character_that_starts_a_word_is_no_number(text: str) -> None:
    assert numeral_spans(text) == []


def test_arabic_numbers_touching_chinese_characters() -> None:
    values = {s.value for s in extract("最多10个，订3晚") if s.kind == "number"}
    assert {10, 3} <= values


def isos(text: str) -> dict[str, str]:
    return {s: v for s, v, *_ in zh_date_spans(text, WEDNESDAY) if s != v}


def test_relative_days_weekdays_and_times() -> None:
    assert isos("今天")["今天"] == "2024-05-01"
    assert isos("明天")["明天"] == "2024-05-02"
    assert isos("下周一开会")["下周一"] == "2024-05-06"
    assert isos("这周五")["这周五"] == "2024-05-03"
    assert isos("周一")["周一"] == "2024-05-06"  # the next Monday
    assert isos("周三下午三点")["周三"] == "2024-05-01"
    for count in ("一周三次", "两个星期三次", "每周三", "我周三次都去"):  # no one day: not read
        assert not [v for s, v, *_ in zh_date_spans(count, WEDNESDAY) if "周" in s or "星期" in s], count
    assert isos("晚上八点")["晚上八点"] == "20:00"
    assert isos("十点半")["十点半"] == "10:30"
    assert isos("明天晚上八点")["明天晚上八点"] == "2024-05-02T20:00:00"


def test_written_days_with_a_year_become_iso_and_without_one_stay_as_written() -> None:
    assert isos("2021年4月15日下午1:45") == {
        "2021年4月15日": "2021-04-15",
        "下午1:45": "13:45",
        "2021年4月15日下午1:45": "2021-04-15T13:45:00",
    }
    assert isos("3月5日") == {}  # which year the text does not say
    assert [v for s, v, *_ in zh_date_spans("3月5日", WEDNESDAY)] == ["3月5日"]


def spans(text: str) -> list[tuple[str, object, str]]:
    return [(s.text, s.value, s.kind) for s in chinese_spans(text, lambda name: None, WEDNESDAY)]


def test_quotes_places_and_phrases() -> None:
    found = spans("在厨房音箱上放「Shape of You」，然后查北京的天气")
    assert ("Shape of You", "Shape of You", "quoted") in found
    assert ("北京", "北京", "name") in found and ("北京", "Beijing", "name") in found
    assert ("天气", "天气", "phrase") in found


def test_a_label_word_ends_a_phrase_and_a_verb_alone_is_no_value() -> None:
    found = spans("订KL441，乘客刘洋，座位换成12A")
    assert ("刘洋", "刘洋", "phrase") in found and ("乘客刘洋", "乘客刘洋", "phrase") in found
    assert not any(text == "换成" for text, _, _ in found)
    assert ("12A", 12, "number") in [(s.text, s.value, s.kind) for s in extract("座位换成12A")]


def test_the_numbers_inside_a_chinese_date_are_not_values_of_their_own() -> None:
    found = [(s.text, s.kind) for s in extract("2027年7月30日住5晚")]
    assert ("5", "number") in found
    assert not any(kind == "number" and text in ("7", "30", "2027") for text, kind in found)


def test_chinese_label_words_count_as_the_english_words_they_mean() -> None:
    index = TextIndex.of("订KL441，乘客刘洋，住三晚")
    assert index.stems == ("订", "kl441", "passenger", "刘", "洋", "住", "三", "night")
    (name,) = params_of({"properties": {"passenger_name": {"type": "string"}}})
    liu = next(s for s in extract(index.text) if s.text == "刘洋")
    assert labelled(name, liu, index.text) == 1.0
    assert index.nearness(name.name_words, liu) == (1.0, 0.0)


@pytest.mark.parametrize(
    ("text", "value", "label"),
    [("姓名：王芳", "王芳", "name"), ("版本为v2", "v2", "version"), ("组件UUID是AB10", "AB10", "uuid")],
)
def test_a_label_joined_to_its_value_by_a_colon_or_shi(text: str, value: str, label: str) -> None:
    assert label in cue_before(text, text.index(value))


def test_an_english_word_before_a_value_is_no_chinese_label() -> None:
    assert cue_before("passenger Anna", 10) == frozenset()


def test_a_place_in_english_only_for_a_parameter_that_asks_for_english() -> None:
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "The city name"},
            "location": {"type": "string", "description": "The city, such as 'Paris'"},
        },
    }
    city, location = params_of(schema)
    english = next(s for s in extract("北京天气") if s.value == "Beijing")
    assert not wants_english(city.description) and not offered(city.description, english)
    assert wants_english(location.description) and offered(location.description, english)


def test_english_is_read_with_the_english_encoder() -> None:
    for text in (
        "What's the weather in Boston?",
        "drink",
        "get list of nodes for fabric fab-ed and ip is 3.321.3232.2",
        "Patient file: 30 years, 100 kg, 170 cm.",  # terse: no function word, still English
    ):
        assert not is_multilingual(text)
    for text in (
        "帮我查一下北京明天的天气",
        "用Python写一个quick sort函数",
        "Peux-tu me donner la météo actuelle pour Paris",
    ):
        assert is_multilingual(text)
    # a Chinese quotation in an English request stays English
    assert not is_multilingual(
        "Listen to the phrase '我爱学习' in a male voice and in Chinese, as a WAV file"
    )


def test_a_script_no_encoder_knows_is_unreadable() -> None:
    assert unreadable("ᏣᎳᎩ ᎦᏬᏂᎯᏍᏗ ᎠᏆᏚᎵ ᎤᏬᏚᎯ")  # Cherokee
    assert not unreadable("帮我查一下北京明天的天气")
    assert not unreadable("What's the weather in Boston?")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("北京天气", 1.0),
        ("What's the weather in Boston?", 0.0),
        ("帮我book一张flight", 4 / 6),  # 帮 我 一 张 in Han, book and flight in Latin
        ("東京の天気を教えて", 0.0),  # Japanese: kana, not Chinese
        ("", 0.0),
    ],
)
def test_the_share_of_a_request_written_in_chinese(text: str, expected: float) -> None:
    assert share("zh", text) == pytest.approx(expected)


def test_the_gain_sharpens_the_choice_in_proportion_to_the_chinese_written(tmp_path: Path) -> None:
    shift = LanguageShift({"zh": torch.zeros(3)}, {"zh": 1.5})
    assert shift.gain("北京天气") == 1.5 and shift.gain("weather in Boston") == 1.0
    assert shift.gain("帮我book一张flight") == pytest.approx(1 + 0.5 * 4 / 6)
    shift.write(tmp_path / "shift.json", "a test")
    assert LanguageShift.load(tmp_path / "shift.json").gains == {"zh": 1.5}
    sharper = sharpen([0.6, 0.3, 0.1], 2.0)
    assert sharper == pytest.approx([0.36 / 0.46, 0.09 / 0.46, 0.01 / 0.46])
    assert sharpen([0.6, 0.4], 1.0) == [0.6, 0.4]
