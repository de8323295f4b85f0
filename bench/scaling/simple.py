"""Simple generated traffic: the same 8 tools on every request, as an agent sends them, each with
1-3 parameters whose values the user's words state; every text distinct (no cached query vector
flatters a run). Generated here, from no public dataset, so any number of requests can be drawn.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator

from bench.scaling.tools import ScalingRequest
from examples.travel_agent.tools import function_tool

CITIES = (
    "Paris", "London", "Berlin", "Madrid", "Rome", "Vienna", "Prague", "Lisbon", "Dublin", "Oslo",
    "Tokyo", "Seoul", "Boston", "Chicago", "Denver", "Seattle", "Toronto", "Sydney", "Cairo", "Lima",
    "Amsterdam", "Brussels", "Zurich", "Munich", "Milan", "Naples", "Athens", "Warsaw", "Budapest",
    "Stockholm", "Helsinki", "Copenhagen", "Barcelona", "Valencia", "Porto", "Edinburgh", "Manchester",
    "Montreal", "Vancouver", "Atlanta", "Houston", "Dallas", "Phoenix", "Miami", "Portland", "Austin",
    "Osaka", "Kyoto", "Bangkok", "Singapore", "Mumbai", "Delhi", "Istanbul", "Dubai", "Nairobi",
    "Melbourne", "Auckland", "Santiago", "Bogota", "Havana",
)  # fmt: skip
AIRLINES = ("LH", "BA", "AF", "KL", "UA", "DL", "AA", "IB", "AZ", "LX")
CURRENCIES = ("USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD", "SEK")


TOOLS = [
    function_tool(
        "get_weather", "Get the current weather forecast for a city", {"city": ("string", "City name")}
    ),
    function_tool(
        "search_flights",
        "Search flights from one city to another",
        {"origin": ("string", "Departure city"), "destination": ("string", "Arrival city")},
    ),
    function_tool(
        "convert_currency",
        "Convert an amount of money from one currency to another",
        {
            "amount": ("number", "Amount to convert"),
            "from_currency": ("string", "Currency code to convert from"),
            "to_currency": ("string", "Currency code to convert to"),
        },
    ),
    function_tool(
        "set_timer", "Start a countdown timer", {"minutes": ("integer", "Length of the timer in minutes")}
    ),
    function_tool(
        "get_directions",
        "Driving directions between two cities, with the distance in kilometres",
        {"start": ("string", "City to start from"), "end": ("string", "City to drive to")},
    ),
    function_tool(
        "book_table",
        "Reserve a table at a restaurant",
        {"city": ("string", "City of the restaurant"), "party_size": ("integer", "Number of guests")},
    ),
    function_tool(
        "track_order", "Track the delivery status of an order", {"order_id": ("string", "The order number")}
    ),
    function_tool(
        "flight_status",
        "Whether a flight is on time, delayed or cancelled",
        {"flight_number": ("string", "The flight number, airline code and digits")},
    ),
]

Template = Callable[[random.Random], tuple[str, str]]  # rng → (the user's text, the tool it calls)


def _weather(r: random.Random) -> tuple[str, str]:
    c = r.choice(CITIES)
    asked = [f"What's the weather like in {c} today?", f"Will it rain in {c}?", f"Weather forecast for {c}"]
    return r.choice([*asked, f"Is it cold in {c} right now?"]), "get_weather"


def _flights(r: random.Random) -> tuple[str, str]:
    a, b = r.sample(CITIES, 2)
    return r.choice([f"Find me flights from {a} to {b}", f"Any flights from {a} to {b} this week?"]), (
        "search_flights"
    )


def _currency(r: random.Random) -> tuple[str, str]:
    amount, (a, b) = r.randint(5, 5000), r.sample(CURRENCIES, 2)
    return r.choice([f"Convert {amount} {a} to {b}", f"How much is {amount} {a} in {b}?"]), "convert_currency"


def _timer(r: random.Random) -> tuple[str, str]:
    m = r.randint(1, 90)
    return r.choice([f"Set a timer for {m} minutes", f"Start a {m} minute timer please"]), "set_timer"


def _directions(r: random.Random) -> tuple[str, str]:
    a, b = r.sample(CITIES, 2)
    return r.choice([f"How do I drive from {a} to {b}?", f"Give me directions from {a} to {b}"]), (
        "get_directions"
    )


def _table(r: random.Random) -> tuple[str, str]:
    n, c = r.randint(2, 12), r.choice(CITIES)
    return r.choice([f"Book a table for {n} people in {c}", f"Reserve a restaurant in {c} for {n} guests"]), (
        "book_table"
    )


def _order(r: random.Random) -> tuple[str, str]:
    order = f"{r.choice('ABCDEFGH')}{r.randint(10000, 99999)}"
    return r.choice([f"Where is my order {order}?", f"Track order {order} for me"]), "track_order"


def _status(r: random.Random) -> tuple[str, str]:
    flight = f"{r.choice(AIRLINES)}{r.randint(100, 9999)}"
    return r.choice([f"Is flight {flight} on time?", f"Has {flight} been delayed?"]), "flight_status"


TEMPLATES: tuple[Template, ...] = (
    _weather,
    _flights,
    _currency,
    _timer,
    _directions,
    _table,
    _order,
    _status,
)


def texts(seed: int = 0) -> Iterator[tuple[str, str]]:
    """Distinct (text, tool) pairs, the tools in turn, forever; the same sequence for a seed."""
    rng, seen = random.Random(seed), set()
    for template in itertools.cycle(TEMPLATES):
        for _ in range(1000):
            drawn = template(rng)
            if drawn[0] not in seen:
                break
        else:
            raise ValueError(f"{template.__name__}: no new text left")
        seen.add(drawn[0])
        yield drawn


class SimpleTraffic:
    """`take` as `Fresh.take` in run.py: requests whose texts this run has not sent yet."""

    def __init__(self, seed: int = 0) -> None:
        self.source = texts(seed)

    def take(self, count: int, tools: int = len(TOOLS)) -> list[ScalingRequest]:
        if tools != len(TOOLS):
            raise ValueError(f"simple traffic offers its {len(TOOLS)} tools, {tools} asked")
        out = []
        for text, tool in itertools.islice(self.source, count):
            body = {"model": "scaling", "messages": [{"role": "user", "content": text}], "tools": TOOLS}
            out.append(ScalingRequest(body, tool))
        return out
