"""Knowledge that text alone does not give, in optional tables behind one interface.

A city's state or country (`places`, GeoNames) and a currency's ISO code (`currencies`) help the
agents whose tools ask for them and no other. Both are general (world cities, the most traded
currencies) and each is offered only to a parameter that asks for it ('City, State', a
currency), so both are on by default; `Settings.knowledge` names the tables a proxy loads. They
are loaded once at start-up and handed to the engine, which passes them to the extraction.
The word lists of a language are not here but in its reader (languages/).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from shadowswitch.engines.local.knowledge.currencies import Currencies, Mention
from shadowswitch.engines.local.knowledge.places import Places

TABLES = ("places", "currencies")
DEFAULT_TABLES = TABLES

__all__ = ["DEFAULT_TABLES", "TABLES", "Currencies", "Knowledge", "Mention", "Places"]


@dataclass(frozen=True)
class Knowledge:
    """The optional tables an engine uses; a table left out (None) adds nothing."""

    places: Places | None = None
    currencies: Currencies | None = None

    @classmethod
    def load(cls, tables: Iterable[str] = DEFAULT_TABLES) -> Knowledge:
        """Read the named tables now (places: about half a second), so that no request waits."""
        wanted = set(tables)
        if unknown := wanted - set(TABLES):
            raise ValueError(f"unknown knowledge tables {sorted(unknown)}; known: {', '.join(TABLES)}")
        return cls(
            places=Places.load() if "places" in wanted else None,
            currencies=Currencies() if "currencies" in wanted else None,
        )

    @property
    def tables(self) -> tuple[str, ...]:
        return tuple(t for t in TABLES if getattr(self, t) is not None)

    def region_of(self, name: str) -> str | None:
        """The city `name` with its state or country ("Paris, France"); None without places."""
        return self.places.region_of(name) if self.places else None

    def currencies_in(self, text: str) -> list[Mention]:
        """The currencies `text` names or writes as codes; none without the currency table."""
        return self.currencies.mentions(text) if self.currencies else []
