"""Value extraction and slot rendering: pure, no model."""

from __future__ import annotations

from shadowswitch.engines.local.arguments.extract import extract
from shadowswitch.engines.local.arguments.lists import list_spans
from shadowswitch.engines.local.arguments.slots import render


def found(text: str, kind: str | None = None) -> list[object]:
    return [s.value for s in extract(text) if kind is None or s.kind == kind]


def test_numbers_keep_their_scale() -> None:
    assert 1_000_000 in found("invest $1M now")
    assert 2_500 in found("about 2.5k users")
    assert 3_000_000_000 in found("3 billion people")
    assert 1234567 in found("1,234,567 rows")
    values = found("a rate of 5%")
    assert 5 in values and 0.05 in values
    assert -4 in found("the value is -4")


def test_a_small_m_is_metres_unless_it_is_money() -> None:
    assert 1.75 in found("she is 1.75m tall") and 1_750_000 not in found("she is 1.75m tall")
    assert 5 in found("a wire 5m long")
    assert 1_500_000 in found("raise $1.5m") and 2_500_000 in found("2.5M downloads")


def test_dates_in_iso_and_as_written() -> None:
    values = found("on April 25th 2023 please", "date")
    assert "2023-04-25" in values and "April 25th 2023" in values
    assert "2023-01-05" in found("from 2023-01-05", "date")
    assert -1 not in found("from 2023-01-05")


def test_names_quotes_identifiers() -> None:
    text = "Play 'Roar' by Katy Perry in New York, NY. The id is wjei_roar."
    assert "Roar" in found(text, "quoted")
    assert "Katy Perry" in found(text, "name") and "New York, NY" in found(text, "name")
    assert "wjei_roar" in found(text, "ident")


def test_lists() -> None:
    assert [3, 4] in [s.value for s in list_spans("point (3, 4) here")]
    assert ["apples", "pears", "plums"] in [s.value for s in list_spans("apples, pears and plums")]
    tags = [s.value for s in list_spans("tags 'Taj Mahal', 'India', and 'art' please")]
    assert tags[0] == ["Taj Mahal", "India", "art"]
    assert ["ITM456", "ITM789"] in [s.value for s in list_spans("items ITM456 and ITM789, and more")]
    assert not list_spans("a 'x' here, then later 'y' there")


def test_a_run_of_numbers_keeps_its_last_item_and_its_thousands() -> None:
    """The first list that fits a parameter fills it: it must not stop before "and 12"."""
    assert list_spans("sort 34, 2, 56, 7, 9, and 12.")[0].value == [34, 2, 56, 7, 9, 12]
    assert list_spans("the mean of 5, 10 or 2.5?")[0].value == [5, 10, 2.5]
    assert list_spans("prices 1,000, 2,500, and 3,000")[0].value == [1000, 2500, 3000]


def test_render_keeps_types_for_whole_placeholders() -> None:
    template = {"action": "lookup", "input": {"id": "{order_id}", "n": "{n}", "msg": "id {n}"}}
    assert render(template, {"order_id": "AB123456", "n": 3}) == {
        "action": "lookup",
        "input": {"id": "AB123456", "n": 3, "msg": "id 3"},
    }


def test_numbers_written_against_their_unit() -> None:
    assert 6 in found("a radius of 6cm", "number")
    assert 5.5 in found("drive at 5.5km/h", "number")
    assert 3 in found("zoom 3x", "number")


def test_a_month_inside_a_date_is_not_a_name() -> None:
    text = "Book it for April 11th, 2023 with Anna"
    assert "April" not in found(text, "name")
    assert "Anna" in found(text, "name")


def test_a_decimal_point_ends_no_sentence() -> None:
    clauses = found("Set the rate to 3.5 for the loan. Then email Bob about it.", "clause")
    assert "Set the rate to 3.5 for the loan." in clauses


def test_a_possessive_before_a_noun_names_its_owner() -> None:
    assert "Madonna" in found("I like Madonna's music from 2019", "name")
    assert "Madonna's" not in found("I like Madonna's music from 2019", "name")
    assert "McDonald's" in found("Order at McDonald's, Chicago", "name")


def test_places_and_addresses_joined_by_commas() -> None:
    assert "Portland, OR" in found("a train from Portland, OR to Seattle, WA", "name")
    addresses = found("an Uber from 221B Baker Street, Berkeley, CA, USA, and quickly", "name")
    assert "221B Baker Street, Berkeley, CA, USA" in addresses
    assert "Baker Street, Berkeley" in addresses
    assert not any("or" in str(v).split() for v in found("tea, or coffee", "name"))


def test_a_unit_in_capitals_after_a_number_is_no_name() -> None:
    """ "GB" was read as the username of "raise the quota for pnair to 100 GB" (14 of the help
    desk's calls): a unit belongs to its number."""
    names = found("Could you raise the quota for pnair to 100 GB?", "name")
    assert "GB" not in names and "100 GB" not in names
    assert "221B Baker Street" in found("send it to 221B Baker Street", "name")  # a house, kept
    assert "UA" in found("Flight UA 123 to SFO", "name")  # capitals before the number, kept


def test_a_name_run_opening_a_sentence_is_offered_without_its_first_word() -> None:
    assert "Katy Perry" in found("Play Katy Perry loud", "name")


def test_more_date_forms_and_a_day_joined_with_its_time() -> None:
    assert "2023-10-01" in found("visit on 2023.10.1", "date")
    assert "2024-03-22" in found("on 22/3/2024", "date")
    assert "2024-03-19T12:00:00" in found("on March 19, 2024, at 12:00 PM", "date")


def test_a_date_is_written_in_the_format_its_parameter_asks_for() -> None:
    from shadowswitch.engines.local.languages.en.dates import asked_format, in_format

    assert asked_format("Date of the journey in the format MM/DD/YYYY.") == "%m/%d/%Y"
    assert asked_format("Start, 'YYYY-MM-DD HH:mm:ss'; e.g. 2024-01-01 00:00:00") == "%Y-%m-%d %H:%M:%S"
    assert asked_format("the city name") is None
    assert in_format("2023-04-22", "%m/%d/%Y") == "04/22/2023"
    assert in_format("2024-03-19T12:00:00", "%Y-%m-%d %H:%M:%S") == "2024-03-19 12:00:00"
    assert in_format("2024-03-19", "%Y-%m-%d %H:%M:%S") is None  # no time was said


def test_lists_written_as_code_nested_ones_included() -> None:
    text = "Multiply [[1, 2], [3, 4]] by [[5,6],[7,8]]; the points are [(45.76, 4.85), (48.85, -2.35)]."
    found = [s.value for s in list_spans(text)]
    assert [[1, 2], [3, 4]] in found and [[5, 6], [7, 8]] in found
    assert [[45.76, 4.85], [48.85, -2.35]] in found  # tuples become lists
    assert all(s.value != [] for s in list_spans("an empty call f() and a typo [1, 2"))


def test_dotted_numbers_are_identifiers_not_numbers() -> None:
    spans = extract("The IP in question is 172.16.254.1, running version 2.10.3 at 3.5 GHz.")
    idents = {s.value for s in spans if s.kind == "ident"}
    assert {"172.16.254.1", "2.10.3"} <= idents and "3.5" not in idents
    numbers = {s.value for s in spans if s.kind == "number"}
    assert numbers == {3.5}  # no 172.16 or 2.1 out of the dotted ones


def test_a_sentence_opening_after_a_quote_mark_is_no_name() -> None:
    assert "Can" not in found('"Can you plan my trip to New York?', "name")
    assert "Could" not in found('He asked: "Could you call Anna?"', "name")
    assert "Anna" in found('He asked: "Could you call Anna?"', "name")


def test_a_currency_named_in_the_text_offers_its_iso_code() -> None:
    assert found("Convert 500 Euros to Japanese Yen", "currency") == ["EUR", "JPY"]
    assert found("how many US dollars is 3000 British Pounds?", "currency") == ["USD", "GBP"]
    assert found("a krone, a yenta and a European trip", "currency") == []
    assert found("convert 1000 USD into EUR, or try CHF", "currency") == ["USD", "EUR", "CHF"]


def test_an_email_parameter_takes_only_an_email_address() -> None:
    from shadowswitch.engines.local.arguments.params import params_of
    from shadowswitch.engines.local.arguments.values import convert

    schema = {
        "type": "object",
        "properties": {"email": {"type": "string"}, "email_subject": {"type": "string"}},
    }
    email, subject = params_of(schema)
    text = "I've moved: please update my address to 312 Willow Lane, Apt 25. I'm ann.lee@mail.example"
    spans = extract(text)
    assert "ann.lee@mail.example" in [convert(email, s) for s in spans]
    assert {convert(email, s) for s in spans} <= {None, "ann.lee@mail.example"}  # never the street
    assert any(convert(subject, s) == "312 Willow Lane" for s in spans)  # a subject takes any text
