"""The tools the agent offers the model, as OpenAI function definitions.

Version 2 is the "upgrade" the demo breaks things with: flight search moved to a backend that
takes IATA airport codes. Its description says so; its schema cannot (any string is a string).
"""

from __future__ import annotations

from typing import Any

DATE = "Date as YYYY-MM-DD"


def function_tool(name: str, description: str, params: dict[str, tuple[str, str]]) -> dict[str, Any]:
    properties = {k: {"type": kind, "description": about} for k, (kind, about) in params.items()}
    schema = {"type": "object", "properties": properties, "required": list(params)}
    return {"type": "function", "function": {"name": name, "description": description, "parameters": schema}}


BOOKING = ("string", "Booking reference, like BK-1042")

TOOLS_V1: list[dict[str, Any]] = [
    function_tool(
        "search_flights",
        "Search flights between two cities on a day: flight numbers, times and prices",
        {
            "origin": ("string", "City the traveller flies from"),
            "destination": ("string", "City the traveller flies to"),
            "date": ("string", DATE),
        },
    ),
    function_tool(
        "book_flight",
        "Book a seat on a flight for a passenger, by flight number and date",
        {
            "flight_number": ("string", "Flight number, like AZ310"),
            "date": ("string", DATE),
            "passenger_name": ("string", "Full name of the passenger"),
        },
    ),
    function_tool(
        "search_hotels",
        "Search hotels in a city for a stay: hotel ids, names and prices",
        {
            "city": ("string", "City of the stay"),
            "check_in": ("string", "Check-in date as YYYY-MM-DD"),
            "nights": ("integer", "Number of nights"),
        },
    ),
    function_tool(
        "book_hotel",
        "Book a hotel room for a guest, by hotel id, check-in date and nights",
        {
            "hotel_id": ("string", "Hotel id, like H-FCO-1"),
            "check_in": ("string", "Check-in date as YYYY-MM-DD"),
            "nights": ("integer", "Number of nights"),
            "guest_name": ("string", "Full name of the guest"),
        },
    ),
    function_tool("get_booking", "Look up a booking: what, when, who, its status", {"booking_id": BOOKING}),
    function_tool("cancel_booking", "Cancel a booking the customer no longer wants", {"booking_id": BOOKING}),
    function_tool(
        "request_refund", "Refund the money of a cancelled booking to the customer", {"booking_id": BOOKING}
    ),
    function_tool(
        "add_baggage",
        "Add checked bags to a flight booking",
        {"booking_id": BOOKING, "bags": ("integer", "How many bags to add")},
    ),
    function_tool(
        "choose_seat",
        "Choose or change the seat on a flight booking",
        {"booking_id": BOOKING, "seat": ("string", "Seat, like 14C")},
    ),
    function_tool(
        "rent_car",
        "Rent a car in a city from a pickup date for some days",
        {
            "city": ("string", "City where the car is picked up"),
            "pickup_date": ("string", "Pickup date as YYYY-MM-DD"),
            "days": ("integer", "Number of rental days"),
        },
    ),
    function_tool(
        "get_weather",
        "Get the weather forecast for a city on a day",
        {"city": ("string", "City"), "date": ("string", DATE)},
    ),
    function_tool(
        "update_email",
        "Change the contact email address of a booking",
        {"booking_id": BOOKING, "email": ("string", "New email address")},
    ),
    function_tool(
        "convert_currency",
        "Convert an amount of money from one currency to another",
        {
            "amount": ("number", "Amount to convert"),
            "from_currency": ("string", "Currency code to convert from, like EUR"),
            "to_currency": ("string", "Currency code to convert to, like USD"),
        },
    ),
]

TOOLS_V2: list[dict[str, Any]] = [
    function_tool(
        "search_flights",
        "Search flights between two airports on a day: flight numbers, times and prices",
        {
            "origin": ("string", "IATA code of the departure airport, like CDG (not a city name)"),
            "destination": ("string", "IATA code of the arrival airport, like FCO (not a city name)"),
            "date": ("string", DATE),
        },
    ),
    *TOOLS_V1[1:],
]

VERSIONS = {"v1": TOOLS_V1, "v2": TOOLS_V2}


def tools_of(version: str) -> list[dict[str, Any]]:
    return VERSIONS[version]


def codes_only(version: str) -> bool:
    """Does this version's flight search take airport codes only?"""
    return version == "v2"
