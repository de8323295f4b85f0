"""The optional knowledge tables (places, currencies): what each adds, and what it does not."""

from __future__ import annotations

import pytest

from shadowswitch.engines.local.arguments.extract import extract
from shadowswitch.engines.local.knowledge import Knowledge


@pytest.fixture(scope="module")
def general() -> Knowledge:
    return Knowledge.load()  # the default tables, as the proxy loads them at start-up


def offered(text: str, kind: str, knowledge: Knowledge) -> list[object]:
    return [s.value for s in extract(text, knowledge) if s.kind == kind]


def test_both_tables_are_on_by_default(general: Knowledge) -> None:
    assert general.tables == ("places", "currencies")
    assert Knowledge().tables == () and Knowledge.load([]).tables == ()


def test_a_city_gets_its_state_or_country(general: Knowledge) -> None:
    assert general.region_of("Paris") == "Paris, France" and general.region_of("London") == "London, UK"
    assert general.region_of("Los Angeles") == "Los Angeles, CA"
    assert general.region_of("New York") == "New York, NY"  # GeoNames' "New York City"
    assert general.region_of("Portland") == "Portland, OR"  # the most populous of the name
    assert general.region_of("Lang Son") == "Lang Son, Vietnam"  # Lạng Sơn, written without accents


def test_what_is_no_town_gets_nothing(general: Knowledge) -> None:
    assert general.region_of("Mexico") is None  # a country, whatever towns share its name
    assert general.region_of("Florida") is None and general.region_of("Texas") is None  # US states
    assert general.region_of("Katy Perry") is None and general.region_of("Zzyzxville") is None
    assert general.region_of("San Diego, CA") is None  # already has its region


def test_extraction_offers_a_city_with_its_region(general: Knowledge) -> None:
    bus = "A bus from San Francisco to Los Angeles"
    assert set(offered(bus, "place", general)) == {"San Francisco, CA", "Los Angeles, CA"}
    # The region the text gives is the one offered.
    text = "Weather in Chennai, Tamil Nadu, then Dallas, TX."
    assert set(offered(text, "place", general)) == {"Chennai, Tamil Nadu", "Dallas, TX"}


def test_with_places_off_no_place_is_offered() -> None:
    currencies_only = Knowledge.load(["currencies"])
    assert currencies_only.region_of("Paris") is None
    assert offered("A bus from San Francisco to Los Angeles", "place", currencies_only) == []
    names = offered("A bus from San Francisco to Los Angeles", "name", currencies_only)
    assert "Los Angeles" in names  # the name itself is still a value


def test_a_named_currency_offers_its_iso_code(general: Knowledge) -> None:
    assert offered("Convert 500 Euros to Japanese Yen", "currency", general) == ["EUR", "JPY"]
    assert offered("convert 1000 USD into EUR, or try CHF", "currency", general) == ["USD", "EUR", "CHF"]
    assert offered("a krone, a yenta and a European trip", "currency", general) == []  # no such currency
    assert offered("I will try it", "currency", general) == []  # "try", not TRY


def test_a_currency_named_in_chinese_offers_its_iso_code(general: Knowledge) -> None:
    assert offered("帮我把500欧元换成日元", "currency", general) == ["EUR", "JPY"]
    assert offered("查一下英镑兑新加坡元的汇率", "currency", general) == ["GBP", "SGD"]  # not 加元 in it
    assert offered("这顿饭一共两百元", "currency", general) == []  # a bare 元 names no currency


def test_with_currencies_off_no_currency_is_offered() -> None:
    no_tables = Knowledge()
    assert no_tables.currencies_in("500 euros in yen") == []
    assert offered("Convert 500 Euros to Japanese Yen", "currency", no_tables) == []


def test_an_unknown_table_is_refused() -> None:
    with pytest.raises(ValueError, match="airports"):
        Knowledge.load(["places", "airports"])
