"""The travel agency's catalogue: cities, airports, flights and hotels. Fixed, so tasks can be checked."""

from __future__ import annotations

import zlib
from dataclasses import dataclass

YEAR = 2027  # the year users mean when they name a day without one

# city → (IATA airport code, the airline based there)
CITIES: dict[str, tuple[str, str]] = {
    "Paris": ("CDG", "AF"),
    "Rome": ("FCO", "AZ"),
    "London": ("LHR", "BA"),
    "Berlin": ("BER", "LH"),
    "Madrid": ("MAD", "IB"),
    "Lisbon": ("LIS", "TP"),
    "Amsterdam": ("AMS", "KL"),
    "Vienna": ("VIE", "OS"),
    "Barcelona": ("BCN", "VY"),
    "Prague": ("PRG", "OK"),
    "Dublin": ("DUB", "EI"),
    "Athens": ("ATH", "A3"),
}
AIRPORTS = {code: city for city, (code, _) in CITIES.items()}
# The cities as Chinese customers write them; the booking system takes either name.
CITY_NAMES_ZH: dict[str, str] = {
    "巴黎": "Paris",
    "罗马": "Rome",
    "伦敦": "London",
    "柏林": "Berlin",
    "马德里": "Madrid",
    "里斯本": "Lisbon",
    "阿姆斯特丹": "Amsterdam",
    "维也纳": "Vienna",
    "巴塞罗那": "Barcelona",
    "布拉格": "Prague",
    "都柏林": "Dublin",
    "雅典": "Athens",
}
DEPARTURES = ("07:10", "12:45", "18:30")


@dataclass(frozen=True)
class Flight:
    number: str
    origin: str
    destination: str
    departs: str
    price_eur: int


@dataclass(frozen=True)
class Hotel:
    id: str
    city: str
    name: str
    price_per_night_eur: int


def flights_between(origin: str, destination: str) -> list[Flight]:
    """The daily flights of a route: the same numbers every day, as airlines do."""
    airline = CITIES[origin][1]
    base = 100 + zlib.crc32(f"{origin}-{destination}".encode()) % 800
    return [
        Flight(f"{airline}{base + 2 * i}", origin, destination, departs, 89 + (base % 60) + 35 * i)
        for i, departs in enumerate(DEPARTURES)
    ]


HOTELS: list[Hotel] = [
    Hotel(f"H-{CITIES[city][0]}-{i + 1}", city, name, price)
    for city, names in {
        "Paris": [("Hotel Lutetia", 320), ("Le Petit Marais", 140)],
        "Rome": [("Hotel Artemide", 190), ("Trastevere Rooms", 95)],
        "London": [("The Strand Palace", 210), ("Camden Lodge", 120)],
        "Berlin": [("Hotel Adlon", 280), ("Kreuzberg Inn", 85)],
        "Madrid": [("Hotel Urban", 175), ("Sol Hostal", 70)],
        "Lisbon": [("Bairro Alto Hotel", 230), ("Alfama Guesthouse", 80)],
        "Amsterdam": [("Pulitzer Amsterdam", 260), ("Canal House B&B", 130)],
        "Vienna": [("Hotel Sacher", 300), ("Naschmarkt Pension", 90)],
        "Barcelona": [("Hotel Arts", 250), ("Gothic Quarter Hostel", 60)],
        "Prague": [("Golden Well Hotel", 210), ("Old Town Rooms", 75)],
        "Dublin": [("The Shelbourne", 270), ("Temple Bar Inn", 110)],
        "Athens": [("Hotel Grande Bretagne", 240), ("Plaka Studios", 85)],
    }.items()
    for i, (name, price) in enumerate(names)
]
HOTELS_BY_ID = {h.id: h for h in HOTELS}
