"""The address reader: a US address written on one line, split into the fields tools take; an
address read unsure (no street, a label out of place) reads nothing."""

from __future__ import annotations

import pytest

from shadowswitch.engines.local.languages.en.addresses import addresses, field_of


def read(text: str) -> list[dict[str, str]]:
    out = []
    for parts in addresses(text):
        assert all(text[p.start : p.end] == p.text for p in parts)  # each field a span as written
        out.append({p.field: p.text for p in parts})
    return out


def test_an_address_in_a_sentence_is_read_from_its_house_number() -> None:
    text = "To confirm: the new delivery address for order LK480428 is 241 Quarry Drive, Boise, ID 95435. Ok?"
    assert read(text) == [{"line1": "241 Quarry Drive", "city": "Boise", "state": "ID", "zip": "95435"}]


def test_apartments_cities_of_words_and_a_country() -> None:
    text = (
        "Ship order 12 to 1200 Route 66, Apt 4, Salt Lake City, UT 84101, USA and 9 Oak Ave, Denver, CO 80202"
    )
    assert read(text) == [
        {
            "line1": "1200 Route 66",
            "line2": "Apt 4",
            "city": "Salt Lake City",
            "state": "UT",
            "zip": "84101",
            "country": "USA",
        },
        {"line1": "9 Oak Ave", "city": "Denver", "state": "CO", "zip": "80202"},
    ]


@pytest.mark.parametrize(
    "text",
    [
        "My zip is 95435.",
        "Jane Smith, 83201",
        "Order 55512 came to 23.50 and shipped with 12345",
        "somewhere near Boise, zip 95435",
        "",
    ],
)
def test_no_full_address_reads_nothing(text: str) -> None:
    assert read(text) == []


def test_parameter_names_say_which_field() -> None:
    names = [
        "line1",
        "address_line_1",
        "address1",
        "street",
        "addressLine2",
        "city",
        "state",
        "zipCode",
        "postal_code",
    ]
    assert [field_of(n) for n in names] == [
        "line1",
        "line1",
        "line1",
        "line1",
        "line2",
        "city",
        "state",
        "zip",
        "zip",
    ]
    assert field_of("customer_id") == field_of("address") == ""
