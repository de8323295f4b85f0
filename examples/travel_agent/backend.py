"""The in-memory booking system the agent's tools act on: real effects, errors for bad arguments.

Every tool returns a JSON-able dict; a bad argument raises `ToolError`, which the agent hands back
to the model as the tool's result ("error: ..."), as a real API would answer 4xx.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from examples.travel_agent.data import AIRPORTS, CITIES, CITY_NAMES_ZH, HOTELS_BY_ID, YEAR, flights_between

MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
EMAIL = re.compile(r"^[\w.+-]+@[\w-]+(\.[\w-]+)+$")
SEAT = re.compile(r"^([1-9]|[1-3]\d)[A-F]$")
HAN_NAME = re.compile(r"^[\u4e00-\u9fff·]{2,6}$")  # 王芳, 欧阳娜娜: a full name without spaces
ZH_DATE = re.compile(r"(?:(\d{4})年)?(\d{1,2})月(\d{1,2})[日号]")
RATES_EUR = {"EUR": 1.0, "USD": 1.08, "GBP": 0.86, "CHF": 0.95, "JPY": 162.0, "SEK": 11.4}


class ToolError(Exception):
    """A call the booking system refuses; its message is what the model reads."""


@dataclass
class Backend:
    """One customer's world: existing bookings in, every change kept.

    `airport_codes_only` is version 2 of the flight search, which takes IATA codes only.
    """

    bookings: dict[str, dict[str, Any]] = field(default_factory=dict)
    airport_codes_only: bool = False
    cars: list[dict[str, Any]] = field(default_factory=list)
    next_id: int = 2001

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        tool = TOOLS.get(name)
        if tool is None:
            raise ToolError(f"unknown tool {name!r}")
        try:
            return tool(self, **arguments)
        except TypeError as exc:  # missing or unexpected argument names
            raise ToolError(f"bad arguments for {name}: {exc}") from None

    def state(self) -> dict[str, Any]:
        """What a task is checked on: every booking and rental, as the system holds them."""
        return copy.deepcopy({"bookings": self.bookings, "cars": self.cars})

    def _new_id(self) -> str:
        self.next_id += 1
        return f"BK-{self.next_id - 1}"

    def booking(self, booking_id: str) -> dict[str, Any]:
        key = str(booking_id).strip().upper()
        if key not in self.bookings:
            raise ToolError(f"booking {booking_id!r} not found")
        return self.bookings[key]


def parse_date(text: str) -> str:
    """'2027-03-14', '14 March', 'March 14th', '14/03/2027', '2027年3月14日', '3月14日' → '2027-03-14'
    (year 2027 when omitted)."""
    raw = str(text).strip().lower()
    if m := re.fullmatch(r"(\d{4})-(\d{1,2})-(\d{1,2})", raw):
        y, mo, d = int(m[1]), int(m[2]), int(m[3])
    elif m := re.fullmatch(r"(\d{1,2})/(\d{1,2})(?:/(\d{4}))?", raw):
        y, mo, d = int(m[3] or YEAR), int(m[2]), int(m[1])
    elif m := re.fullmatch(r"(\d{1,2})(?:st|nd|rd|th)?(?: of)? ([a-z]+),? ?(\d{4})?", raw):
        y, mo, d = int(m[3] or YEAR), _month(m[2]), int(m[1])
    elif m := re.fullmatch(r"([a-z]+) (\d{1,2})(?:st|nd|rd|th)?,? ?(\d{4})?", raw):
        y, mo, d = int(m[3] or YEAR), _month(m[1]), int(m[2])
    elif m := ZH_DATE.fullmatch(raw):
        y, mo, d = int(m[1] or YEAR), int(m[2]), int(m[3])
    else:
        raise ToolError(f"cannot read the date {text!r}; use YYYY-MM-DD")
    try:
        return date(y, mo, d).isoformat()
    except ValueError:
        raise ToolError(f"no such date: {text!r}") from None


def _month(name: str) -> int:
    found = [i + 1 for i, m in enumerate(MONTHS) if m.startswith(name[:3])]
    if not found or len(name) < 3:
        raise ToolError(f"unknown month {name!r}")
    return found[0]


def _city(value: str, codes_only: bool = False) -> str:
    text = str(value).strip()
    if text.upper() in AIRPORTS:
        return AIRPORTS[text.upper()]
    if codes_only:
        raise ToolError(f"unknown airport {value!r}: search_flights takes IATA airport codes such as CDG")
    city = CITY_NAMES_ZH.get(text, text.title())
    if city not in CITIES:
        raise ToolError(f"no service to {value!r}; we fly to {', '.join(CITIES)}")
    return city


def _positive(value: Any, what: str, most: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or int(value) != value:
        raise ToolError(f"{what} must be a whole number, got {value!r}")
    if not 1 <= value <= most:
        raise ToolError(f"{what} must be between 1 and {most}, got {value}")
    return int(value)


def _name(value: Any) -> str:
    text = " ".join(str(value).split())
    if HAN_NAME.match(text):
        return text
    if len(text.split()) < 2:
        raise ToolError(f"give the traveller's full name, got {value!r}")
    return text.title()


def search_flights(b: Backend, origin: str, destination: str, date: str) -> dict[str, Any]:
    start, end = _city(origin, b.airport_codes_only), _city(destination, b.airport_codes_only)
    if start == end:
        raise ToolError("origin and destination are the same")
    day = parse_date(date)
    flights = [
        {"flight_number": f.number, "date": day, "departs": f.departs, "price_eur": f.price_eur}
        for f in flights_between(start, end)
    ]
    return {"origin": start, "destination": end, "flights": flights}


def book_flight(b: Backend, flight_number: str, date: str, passenger_name: str) -> dict[str, Any]:
    number = str(flight_number).replace(" ", "").upper()
    flight = next(
        (f for o in CITIES for d in CITIES if o != d for f in flights_between(o, d) if f.number == number),
        None,
    )
    if flight is None:
        raise ToolError(f"flight {flight_number!r} not found")
    booking = {
        "kind": "flight",
        "flight_number": number,
        "route": f"{flight.origin} → {flight.destination}",
        "date": parse_date(date),
        "traveller": _name(passenger_name),
        "price_eur": flight.price_eur,
        "status": "confirmed",
        "bags": 0,
        "seat": None,
    }
    booking_id = b._new_id()
    b.bookings[booking_id] = booking
    return {"booking_id": booking_id, **booking}


def search_hotels(b: Backend, city: str, check_in: str, nights: int) -> dict[str, Any]:
    place, day, count = _city(city), parse_date(check_in), _positive(nights, "nights", 30)
    hotels = [
        {"hotel_id": h.id, "name": h.name, "total_eur": h.price_per_night_eur * count}
        for h in HOTELS_BY_ID.values()
        if h.city == place
    ]
    return {"city": place, "check_in": day, "nights": count, "hotels": hotels}


def book_hotel(b: Backend, hotel_id: str, check_in: str, nights: int, guest_name: str) -> dict[str, Any]:
    hotel = HOTELS_BY_ID.get(str(hotel_id).strip().upper())
    if hotel is None:
        raise ToolError(f"hotel {hotel_id!r} not found")
    count = _positive(nights, "nights", 30)
    booking = {
        "kind": "hotel",
        "hotel_id": hotel.id,
        "hotel": hotel.name,
        "check_in": parse_date(check_in),
        "nights": count,
        "traveller": _name(guest_name),
        "price_eur": hotel.price_per_night_eur * count,
        "status": "confirmed",
    }
    booking_id = b._new_id()
    b.bookings[booking_id] = booking
    return {"booking_id": booking_id, **booking}


def get_booking(b: Backend, booking_id: str) -> dict[str, Any]:
    return {"booking_id": str(booking_id).upper(), **b.booking(booking_id)}


def cancel_booking(b: Backend, booking_id: str) -> dict[str, Any]:
    booking = b.booking(booking_id)
    if booking["status"] != "confirmed":
        raise ToolError(f"booking {booking_id} is already {booking['status']}")
    booking["status"] = "cancelled"
    return {"booking_id": str(booking_id).upper(), "status": "cancelled"}


def request_refund(b: Backend, booking_id: str) -> dict[str, Any]:
    booking = b.booking(booking_id)
    if booking["status"] != "cancelled":
        raise ToolError(f"booking {booking_id} is {booking['status']}: only a cancelled booking is refunded")
    booking["status"] = "refunded"
    return {"booking_id": str(booking_id).upper(), "refunded_eur": booking["price_eur"]}


def add_baggage(b: Backend, booking_id: str, bags: int) -> dict[str, Any]:
    booking = _flight(b, booking_id)
    booking["bags"] += _positive(bags, "bags", 5)
    return {"booking_id": str(booking_id).upper(), "bags": booking["bags"], "fee_eur": 35 * bags}


def choose_seat(b: Backend, booking_id: str, seat: str) -> dict[str, Any]:
    booking = _flight(b, booking_id)
    wanted = str(seat).replace(" ", "").upper()
    if not SEAT.match(wanted):
        raise ToolError(f"no seat {seat!r} on this aircraft: rows 1-39, letters A-F (e.g. 14C)")
    booking["seat"] = wanted
    return {"booking_id": str(booking_id).upper(), "seat": wanted}


def _flight(b: Backend, booking_id: str) -> dict[str, Any]:
    booking = b.booking(booking_id)
    if booking["kind"] != "flight" or booking["status"] != "confirmed":
        raise ToolError(f"booking {booking_id} is not a confirmed flight")
    return booking


def rent_car(b: Backend, city: str, pickup_date: str, days: int) -> dict[str, Any]:
    rental = {
        "city": _city(city),
        "pickup_date": parse_date(pickup_date),
        "days": _positive(days, "days", 30),
    }
    b.cars.append(rental)
    return {"rental_id": f"CAR-{len(b.cars)}", **rental, "price_eur": 45 * rental["days"]}


def get_weather(b: Backend, city: str, date: str) -> dict[str, Any]:
    place, day = _city(city), parse_date(date)
    warm = 12 + len(place) + int(day[5:7])
    return {"city": place, "date": day, "forecast": "sunny" if warm % 3 else "showers", "high_c": warm}


def update_email(b: Backend, booking_id: str, email: str) -> dict[str, Any]:
    booking = b.booking(booking_id)
    if not EMAIL.match(str(email).strip()):
        raise ToolError(f"{email!r} is not an email address")
    booking["email"] = str(email).strip().lower()
    return {"booking_id": str(booking_id).upper(), "email": booking["email"]}


def convert_currency(b: Backend, amount: float, from_currency: str, to_currency: str) -> dict[str, Any]:
    source, target = str(from_currency).upper(), str(to_currency).upper()
    for code in (source, target):
        if code not in RATES_EUR:
            raise ToolError(f"unknown currency {code!r}; we convert {', '.join(RATES_EUR)}")
    if isinstance(amount, bool) or not isinstance(amount, int | float) or amount <= 0:
        raise ToolError(f"amount must be a positive number, got {amount!r}")
    converted = round(amount / RATES_EUR[source] * RATES_EUR[target], 2)
    return {"amount": amount, "from": source, "to": target, "converted": converted}


TOOLS: dict[str, Callable[..., dict[str, Any]]] = {
    f.__name__: f
    for f in (
        search_flights,
        book_flight,
        search_hotels,
        book_hotel,
        get_booking,
        cancel_booking,
        request_refund,
        add_baggage,
        choose_seat,
        rent_car,
        get_weather,
        update_email,
        convert_currency,
    )
}
