"""The travel agent's booking system: real effects, errors for bad arguments, checkable end states."""

from __future__ import annotations

import pytest

from examples.travel_agent.backend import Backend, ToolError, parse_date
from examples.travel_agent.tasks import TASKS, fresh_backend
from examples.travel_agent.tools import TOOLS_V1, TOOLS_V2


def test_the_task_set_is_large_multi_step_and_every_expected_call_works() -> None:
    assert len(TASKS) >= 40
    assert len({t.id for t in TASKS}) == len(TASKS)
    assert sum(len(t.turns) > 1 for t in TASKS) >= 30
    for task in TASKS:
        backend = fresh_backend()
        for turn in task.turns:
            for call in turn.calls:
                backend.call(call.name, dict(call.arguments))  # raises on a broken task
        assert task.check(backend), task.id


def test_a_task_fails_when_nothing_or_the_wrong_thing_was_done() -> None:
    task = next(t for t in TASKS if t.id == "flight-01")
    assert not task.check(fresh_backend())  # nothing booked
    wrong = fresh_backend()
    booking = task.turns[1].calls[0].arguments
    wrong.call("book_flight", {**booking, "passenger_name": "Someone Else"})
    assert not task.check(wrong)


def test_booking_then_cancelling_then_refunding_changes_the_state() -> None:
    b = fresh_backend()
    made = b.call(
        "book_hotel", {"hotel_id": "h-fco-2", "check_in": "14 March", "nights": 2, "guest_name": "ann lee"}
    )
    assert (
        made["booking_id"] == "BK-2001"
        and made["check_in"] == "2027-03-14"
        and made["traveller"] == "Ann Lee"
    )
    with pytest.raises(ToolError, match="only a cancelled booking"):
        b.call("request_refund", {"booking_id": "BK-2001"})
    b.call("cancel_booking", {"booking_id": "bk-2001"})
    assert b.call("request_refund", {"booking_id": "BK-2001"})["refunded_eur"] == 2 * 95
    assert b.state()["bookings"]["BK-2001"]["status"] == "refunded"


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        (
            "search_flights",
            {"origin": "Paris", "destination": "Atlantis", "date": "2027-03-14"},
            "no service",
        ),
        (
            "search_flights",
            {"origin": "Paris", "destination": "Rome", "date": "someday"},
            "cannot read the date",
        ),
        ("search_flights", {"origin": "Paris", "destination": "Rome"}, "bad arguments"),
        ("book_flight", {"flight_number": "XX1", "date": "2027-03-14", "passenger_name": "A B"}, "not found"),
        (
            "book_flight",
            {"flight_number": "AF999", "date": "2027-02-30", "passenger_name": "Ann"},
            "not found",
        ),
        ("search_hotels", {"city": "Rome", "check_in": "2027-03-14", "nights": 0}, "between 1 and 30"),
        ("search_hotels", {"city": "Rome", "check_in": "2027-03-14", "nights": "two"}, "whole number"),
        ("add_baggage", {"booking_id": "BK-1043", "bags": 1}, "not a confirmed flight"),
        ("choose_seat", {"booking_id": "BK-1041", "seat": "99Z"}, "no seat"),
        ("update_email", {"booking_id": "BK-1041", "email": "not-an-address"}, "not an email"),
        ("cancel_booking", {"booking_id": "BK-1046"}, "already cancelled"),
        ("get_booking", {"booking_id": "BK-9999"}, "not found"),
        (
            "convert_currency",
            {"amount": 10, "from_currency": "EUR", "to_currency": "XYZ"},
            "unknown currency",
        ),
        ("fly_to_the_moon", {}, "unknown tool"),
    ],
)
def test_bad_arguments_are_errors_the_model_can_read(name: str, arguments: dict, message: str) -> None:
    with pytest.raises(ToolError, match=message):
        fresh_backend().call(name, arguments)


def test_version_2_flight_search_takes_airport_codes_only() -> None:
    v2 = fresh_backend(airport_codes_only=True)
    with pytest.raises(ToolError, match="IATA"):
        v2.call("search_flights", {"origin": "Paris", "destination": "Rome", "date": "2027-03-14"})
    found = v2.call("search_flights", {"origin": "CDG", "destination": "FCO", "date": "2027-03-14"})
    assert found["origin"] == "Paris" and len(found["flights"]) == 3
    assert Backend().call("search_flights", {"origin": "Paris", "destination": "FCO", "date": "14/03"})


@pytest.mark.parametrize(
    ("text", "iso"),
    [
        ("2027-03-14", "2027-03-14"),
        ("14 March", "2027-03-14"),
        ("March 14th", "2027-03-14"),
        ("14/03/2028", "2028-03-14"),
        ("2 Dec 2027", "2027-12-02"),
    ],
)
def test_dates_are_read_as_people_write_them(text: str, iso: str) -> None:
    assert parse_date(text) == iso


def test_the_tool_definitions_match_the_backend() -> None:
    from examples.travel_agent.backend import TOOLS

    for tools in (TOOLS_V1, TOOLS_V2):
        assert [t["function"]["name"] for t in tools] == list(TOOLS)
        assert 8 <= len(tools) <= 15
