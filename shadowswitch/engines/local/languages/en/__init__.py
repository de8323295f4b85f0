"""English, the base language: its words (`words`) and dates (`dates`) are read in every text.

The patterns for numbers, quotes, names and identifiers (arguments.extract) are English too, and
so are the nearness features' words, so this reader adds nothing on top of them.
"""

from __future__ import annotations

from datetime import date

from shadowswitch.engines.local.languages.base import Glossed, PlaceOf, Span


class English:
    code = "en"

    def writes(self, text: str) -> bool:
        return any(c.isascii() and c.isalpha() for c in text)

    def share(self, text: str) -> float:
        from shadowswitch.engines.local.language import units

        found = units(text)
        return sum(1 for _, script in found if script == "LATIN") / len(found) if found else 0.0

    def spans(self, text: str, region_of: PlaceOf, today: date | None = None) -> list[Span]:
        return []  # arguments.extract reads English

    def tokens(self, text: str) -> list[tuple[int, str]]:
        return []

    def labels_before(self, text: str, at: int) -> frozenset[str]:
        return frozenset()

    def role_before(self, text: str, at: int, currency: bool) -> str | None:
        return None

    def offered(self, description: str, span: Span) -> bool:
        return True

    def glossed(self, text: str) -> list[Glossed]:
        return []

    def negated(self, text: str, start: int) -> bool:
        return False


READER = English()
