"""The task set: what customers ask, turn by turn, in their own words, and the calls a good agent makes.

A task is checked on its end state: the booking system after the agent's run must equal the
system after the expected calls alone (same bookings, statuses, bags, seats, rentals). The
expected calls also tell the demo's simulated model what a good model would do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from examples.travel_agent.backend import Backend, ToolError
from examples.travel_agent.data import flights_between


@dataclass(frozen=True)
class Call:
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Turn:
    user: str
    calls: tuple[Call, ...] = ()


@dataclass(frozen=True)
class Task:
    id: str
    turns: tuple[Turn, ...]
    tags: tuple[str, ...] = field(default=())

    def check(self, backend: Backend) -> bool:
        """Did the agent leave the booking system as the expected calls would?"""
        return backend.state() == expected_state(self, backend.airport_codes_only)


def fresh_backend(airport_codes_only: bool = False) -> Backend:
    """The customer's world at the start of every task: a few bookings made earlier."""
    backend = Backend(next_id=1041)
    for name, args in SETUP:
        backend.call(name, args)
    backend.next_id = 2001
    backend.airport_codes_only = airport_codes_only
    return backend


def expected_state(task: Task, airport_codes_only: bool = False) -> dict[str, Any]:
    backend = fresh_backend()  # the expected calls name cities: version 1's search
    for turn in task.turns:
        for call in turn.calls:
            try:
                backend.call(call.name, call.arguments)
            except ToolError as exc:  # a task that expects an error would be a broken task
                raise AssertionError(f"task {task.id}: expected call {call} fails: {exc}") from None
    return backend.state()


def fl(origin: str, destination: str, slot: int = 0) -> str:
    """The flight number of a route's morning (0), midday (1) or evening (2) flight."""
    return flights_between(origin, destination)[slot].number


def C(name: str, **arguments: Any) -> Call:
    return Call(name, arguments)


def U(user: str, *calls: Call) -> Turn:
    return Turn(user, calls)


SETUP: list[tuple[str, dict[str, Any]]] = [
    (
        "book_flight",
        {"flight_number": fl("Paris", "Rome"), "date": "2027-04-02", "passenger_name": "Anna Schmidt"},
    ),
    (
        "book_flight",
        {"flight_number": fl("Lisbon", "Madrid", 1), "date": "2027-05-10", "passenger_name": "Tom Becker"},
    ),
    (
        "book_hotel",
        {"hotel_id": "H-FCO-1", "check_in": "2027-04-02", "nights": 3, "guest_name": "Anna Schmidt"},
    ),
    (
        "book_flight",
        {"flight_number": fl("Berlin", "Vienna"), "date": "2027-06-01", "passenger_name": "Mia Wong"},
    ),
    (
        "book_hotel",
        {"hotel_id": "H-LIS-2", "check_in": "2027-05-10", "nights": 2, "guest_name": "Tom Becker"},
    ),
    (
        "book_flight",
        {"flight_number": fl("Dublin", "London", 2), "date": "2027-03-20", "passenger_name": "Liam Byrne"},
    ),
    ("cancel_booking", {"booking_id": "BK-1046"}),
    (
        "book_flight",
        {"flight_number": fl("Athens", "Rome"), "date": "2027-07-15", "passenger_name": "Sofia Papadopoulos"},
    ),
]  # → BK-1041 … BK-1047


def _flight_trip(n: int, origin: str, dest: str, day: str, iso: str, who: str, slot: int) -> Task:
    return Task(
        f"flight-{n:02d}",
        (
            U(
                f"Can you find me flights from {origin} to {dest} on {day}?",
                C("search_flights", origin=origin, destination=dest, date=iso),
            ),
            U(
                f"Please book {fl(origin, dest, slot)} on {day} for {who}.",
                C("book_flight", flight_number=fl(origin, dest, slot), date=iso, passenger_name=who),
            ),
        ),
        ("flights",),
    )


def _hotel_stay(
    n: int, city: str, hotel: str, hotel_id: str, day: str, iso: str, nights: int, who: str
) -> Task:
    return Task(
        f"hotel-{n:02d}",
        (
            U(
                f"I need a hotel in {city} from {day} for {nights} nights.",
                C("search_hotels", city=city, check_in=iso, nights=nights),
            ),
            U(
                f"Book {hotel} ({hotel_id}) from {day} for {nights} nights, guest {who}.",
                C("book_hotel", hotel_id=hotel_id, check_in=iso, nights=nights, guest_name=who),
            ),
        ),
        ("hotels",),
    )


TASKS: list[Task] = [
    _flight_trip(1, "Paris", "Rome", "14 March 2027", "2027-03-14", "Anna Schmidt", 1),
    _flight_trip(2, "London", "Berlin", "3 April 2027", "2027-04-03", "James Carter", 0),
    _flight_trip(3, "Madrid", "Lisbon", "22 May 2027", "2027-05-22", "Lucia Fernandez", 2),
    _flight_trip(4, "Amsterdam", "Prague", "9 June 2027", "2027-06-09", "Pieter Visser", 1),
    _flight_trip(5, "Vienna", "Athens", "30 July 2027", "2027-07-30", "Katharina Huber", 0),
    _flight_trip(6, "Dublin", "Barcelona", "12 August 2027", "2027-08-12", "Siobhan Kelly", 2),
    _flight_trip(7, "Rome", "London", "5 September 2027", "2027-09-05", "Marco Rossi", 1),
    _flight_trip(8, "Berlin", "Madrid", "18 October 2027", "2027-10-18", "Jonas Weber", 0),
    _hotel_stay(1, "Rome", "Hotel Artemide", "H-FCO-1", "14 March 2027", "2027-03-14", 3, "Anna Schmidt"),
    _hotel_stay(
        2, "Lisbon", "Alfama Guesthouse", "H-LIS-2", "22 May 2027", "2027-05-22", 4, "Lucia Fernandez"
    ),
    _hotel_stay(3, "Prague", "Golden Well Hotel", "H-PRG-1", "9 June 2027", "2027-06-09", 2, "Pieter Visser"),
    _hotel_stay(4, "Athens", "Plaka Studios", "H-ATH-2", "30 July 2027", "2027-07-30", 5, "Katharina Huber"),
    _hotel_stay(5, "Vienna", "Hotel Sacher", "H-VIE-1", "2 November 2027", "2027-11-02", 2, "Eva Novak"),
    _hotel_stay(6, "Dublin", "Temple Bar Inn", "H-DUB-2", "17 March 2027", "2027-03-17", 3, "Liam Byrne"),
    Task(
        "trip-01",
        (
            U(
                "Find flights from Paris to Barcelona on 6 May 2027.",
                C("search_flights", origin="Paris", destination="Barcelona", date="2027-05-06"),
            ),
            U(
                f"Book {fl('Paris', 'Barcelona', 0)} on 6 May 2027 for Claire Dubois.",
                C(
                    "book_flight",
                    flight_number=fl("Paris", "Barcelona", 0),
                    date="2027-05-06",
                    passenger_name="Claire Dubois",
                ),
            ),
            U(
                "Now show me hotels in Barcelona from 6 May 2027 for 3 nights.",
                C("search_hotels", city="Barcelona", check_in="2027-05-06", nights=3),
            ),
            U(
                "Book Hotel Arts, H-BCN-1, from 6 May 2027 for 3 nights for Claire Dubois.",
                C(
                    "book_hotel",
                    hotel_id="H-BCN-1",
                    check_in="2027-05-06",
                    nights=3,
                    guest_name="Claire Dubois",
                ),
            ),
        ),
        ("flights", "hotels"),
    ),
    Task(
        "trip-02",
        (
            U(
                "Flights from Amsterdam to Dublin on 21 September 2027, please.",
                C("search_flights", origin="Amsterdam", destination="Dublin", date="2027-09-21"),
            ),
            U(
                f"I'll take {fl('Amsterdam', 'Dublin', 2)} on 21 September 2027, passenger Ruth Okafor.",
                C(
                    "book_flight",
                    flight_number=fl("Amsterdam", "Dublin", 2),
                    date="2027-09-21",
                    passenger_name="Ruth Okafor",
                ),
            ),
            U(
                "And rent me a car in Dublin from 21 September 2027 for 4 days.",
                C("rent_car", city="Dublin", pickup_date="2027-09-21", days=4),
            ),
        ),
        ("flights", "cars"),
    ),
    Task(
        "trip-03",
        (
            U(
                "What will the weather be like in Athens on 30 July 2027?",
                C("get_weather", city="Athens", date="2027-07-30"),
            ),
            U(
                "OK, find flights from Rome to Athens on 29 July 2027.",
                C("search_flights", origin="Rome", destination="Athens", date="2027-07-29"),
            ),
            U(
                f"Book {fl('Rome', 'Athens', 1)} on 29 July 2027 for Giulia Bianchi.",
                C(
                    "book_flight",
                    flight_number=fl("Rome", "Athens", 1),
                    date="2027-07-29",
                    passenger_name="Giulia Bianchi",
                ),
            ),
        ),
        ("weather", "flights"),
    ),
    Task(
        "cancel-01",
        (
            U("Please cancel my booking BK-1042, plans changed.", C("cancel_booking", booking_id="BK-1042")),
            U("Can you refund booking BK-1042 to me?", C("request_refund", booking_id="BK-1042")),
        ),
        ("cancel",),
    ),
    Task(
        "cancel-02",
        (
            U("I want to cancel the hotel booking BK-1043.", C("cancel_booking", booking_id="BK-1043")),
            U("Thanks. Refund BK-1043 as well please.", C("request_refund", booking_id="BK-1043")),
        ),
        ("cancel",),
    ),
    Task(
        "cancel-03",
        (U("Cancel booking BK-1044 for me.", C("cancel_booking", booking_id="BK-1044")),),
        ("cancel",),
    ),
    Task(
        "cancel-04",
        (
            U(
                "Cancel reservation BK-1045, we are not going to Lisbon anymore.",
                C("cancel_booking", booking_id="BK-1045"),
            ),
            U("Please refund the money for BK-1045.", C("request_refund", booking_id="BK-1045")),
        ),
        ("cancel",),
    ),
    Task(
        "refund-01",
        (
            U(
                "My flight BK-1046 was cancelled, I'd like my money back.",
                C("request_refund", booking_id="BK-1046"),
            ),
        ),
        ("refund",),
    ),
    Task(
        "refund-02",
        (
            U("What's the status of booking BK-1046?", C("get_booking", booking_id="BK-1046")),
            U("Then refund BK-1046 please.", C("request_refund", booking_id="BK-1046")),
        ),
        ("refund",),
    ),
    Task(
        "bags-01",
        (U("Add 2 checked bags to booking BK-1041.", C("add_baggage", booking_id="BK-1041", bags=2)),),
        ("extras",),
    ),
    Task(
        "bags-02",
        (
            U(
                "Can I bring one extra suitcase on BK-1047? Add 1 bag.",
                C("add_baggage", booking_id="BK-1047", bags=1),
            ),
            U("Also give me seat 12A on BK-1047.", C("choose_seat", booking_id="BK-1047", seat="12A")),
        ),
        ("extras",),
    ),
    Task(
        "seat-01",
        (
            U(
                "I'd like a window seat, 21F, on booking BK-1044.",
                C("choose_seat", booking_id="BK-1044", seat="21F"),
            ),
        ),
        ("extras",),
    ),
    Task(
        "seat-02",
        (
            U("Change my seat on BK-1042 to 3C please.", C("choose_seat", booking_id="BK-1042", seat="3C")),
            U("And add 2 bags to BK-1042.", C("add_baggage", booking_id="BK-1042", bags=2)),
        ),
        ("extras",),
    ),
    Task(
        "lookup-01",
        (
            U("Can you look up booking BK-1043 for me?", C("get_booking", booking_id="BK-1043")),
            U("Thanks, that's all I needed."),
        ),
        ("lookup",),
    ),
    Task(
        "lookup-02", (U("When is my flight BK-1047?", C("get_booking", booking_id="BK-1047")),), ("lookup",)
    ),
    Task(
        "email-01",
        (
            U(
                "Please change the email on BK-1041 to anna.schmidt@example.com.",
                C("update_email", booking_id="BK-1041", email="anna.schmidt@example.com"),
            ),
        ),
        ("contact",),
    ),
    Task(
        "email-02",
        (
            U(
                "Update the contact email for booking BK-1045 to tom.becker@mail.de",
                C("update_email", booking_id="BK-1045", email="tom.becker@mail.de"),
            ),
        ),
        ("contact",),
    ),
    Task(
        "car-01",
        (
            U(
                "Rent a car in Madrid from 22 May 2027 for 5 days.",
                C("rent_car", city="Madrid", pickup_date="2027-05-22", days=5),
            ),
        ),
        ("cars",),
    ),
    Task(
        "car-02",
        (
            U(
                "I need a rental car in Vienna, picking it up on 1 June 2027, for 3 days.",
                C("rent_car", city="Vienna", pickup_date="2027-06-01", days=3),
            ),
        ),
        ("cars",),
    ),
    Task(
        "weather-01",
        (
            U(
                "What's the weather forecast for London on 4 April 2027?",
                C("get_weather", city="London", date="2027-04-04"),
            ),
        ),
        ("weather",),
    ),
    Task(
        "weather-02",
        (
            U(
                "Will it rain in Berlin on 18 October 2027?",
                C("get_weather", city="Berlin", date="2027-10-18"),
            ),
            U("Thank you!"),
        ),
        ("weather",),
    ),
    Task(
        "money-01",
        (
            U(
                "How much is 250 EUR in USD?",
                C("convert_currency", amount=250, from_currency="EUR", to_currency="USD"),
            ),
        ),
        ("currency",),
    ),
    Task(
        "money-02",
        (
            U(
                "Convert 1200 GBP to EUR for me.",
                C("convert_currency", amount=1200, from_currency="GBP", to_currency="EUR"),
            ),
        ),
        ("currency",),
    ),
    Task(
        "mixed-01",
        (
            U("Look up booking BK-1041 please.", C("get_booking", booking_id="BK-1041")),
            U("Add 1 bag to BK-1041.", C("add_baggage", booking_id="BK-1041", bags=1)),
            U("And put me in seat 7D on BK-1041.", C("choose_seat", booking_id="BK-1041", seat="7D")),
        ),
        ("lookup", "extras"),
    ),
    Task(
        "mixed-02",
        (
            U(
                "Find hotels in Madrid from 10 May 2027 for 2 nights.",
                C("search_hotels", city="Madrid", check_in="2027-05-10", nights=2),
            ),
            U(
                "Book Sol Hostal, H-MAD-2, from 10 May 2027 for 2 nights for Tom Becker.",
                C("book_hotel", hotel_id="H-MAD-2", check_in="2027-05-10", nights=2, guest_name="Tom Becker"),
            ),
            U("Cancel my old Lisbon hotel BK-1045.", C("cancel_booking", booking_id="BK-1045")),
        ),
        ("hotels", "cancel"),
    ),
    Task(
        "mixed-03",
        (
            U(
                "Search flights from Prague to Paris on 2 December 2027.",
                C("search_flights", origin="Prague", destination="Paris", date="2027-12-02"),
            ),
            U(
                f"Book {fl('Prague', 'Paris', 2)} on 2 December 2027 for Tereza Dvorak.",
                C(
                    "book_flight",
                    flight_number=fl("Prague", "Paris", 2),
                    date="2027-12-02",
                    passenger_name="Tereza Dvorak",
                ),
            ),
            U(
                "How much is 300 EUR in CHF?",
                C("convert_currency", amount=300, from_currency="EUR", to_currency="CHF"),
            ),
        ),
        ("flights", "currency"),
    ),
    Task(
        "mixed-04",
        (
            U(
                "Is it sunny in Barcelona on 12 August 2027?",
                C("get_weather", city="Barcelona", date="2027-08-12"),
            ),
            U(
                "Rent a car in Barcelona from 12 August 2027 for 7 days.",
                C("rent_car", city="Barcelona", pickup_date="2027-08-12", days=7),
            ),
        ),
        ("weather", "cars"),
    ),
    Task(
        "mixed-05",
        (
            U("Cancel BK-1047, I can't travel in July.", C("cancel_booking", booking_id="BK-1047")),
            U("Refund booking BK-1047.", C("request_refund", booking_id="BK-1047")),
            U(
                "Find me flights from Athens to Rome on 20 August 2027 instead.",
                C("search_flights", origin="Athens", destination="Rome", date="2027-08-20"),
            ),
            U(
                f"Book {fl('Athens', 'Rome', 0)} on 20 August 2027 for Sofia Papadopoulos.",
                C(
                    "book_flight",
                    flight_number=fl("Athens", "Rome", 0),
                    date="2027-08-20",
                    passenger_name="Sofia Papadopoulos",
                ),
            ),
        ),
        ("cancel", "flights"),
    ),
    Task(
        "mixed-06",
        (
            U(
                "Show me hotels in Amsterdam from 9 June 2027 for 1 night.",
                C("search_hotels", city="Amsterdam", check_in="2027-06-09", nights=1),
            ),
            U(
                "Book Canal House B&B, H-AMS-2, from 9 June 2027 for 1 night, guest Pieter Visser.",
                C(
                    "book_hotel",
                    hotel_id="H-AMS-2",
                    check_in="2027-06-09",
                    nights=1,
                    guest_name="Pieter Visser",
                ),
            ),
            U("Perfect, thanks."),
        ),
        ("hotels",),
    ),
    Task(
        "mixed-07",
        (
            U(
                "Change the email of BK-1044 to mia.wong@example.org",
                C("update_email", booking_id="BK-1044", email="mia.wong@example.org"),
            ),
            U("And choose seat 30B on BK-1044.", C("choose_seat", booking_id="BK-1044", seat="30B")),
        ),
        ("contact", "extras"),
    ),
    Task(
        "mixed-08",
        (
            U(
                "Flights from Lisbon to Amsterdam on 15 October 2027?",
                C("search_flights", origin="Lisbon", destination="Amsterdam", date="2027-10-15"),
            ),
            U(
                f"Book {fl('Lisbon', 'Amsterdam', 1)} on 15 October 2027 for Joao Silva.",
                C(
                    "book_flight",
                    flight_number=fl("Lisbon", "Amsterdam", 1),
                    date="2027-10-15",
                    passenger_name="Joao Silva",
                ),
            ),
            U(
                "What's the weather in Amsterdam on 15 October 2027?",
                C("get_weather", city="Amsterdam", date="2027-10-15"),
            ),
        ),
        ("flights", "weather"),
    ),
]
