"""Currencies as people write them ("Japanese yen", "euros"), each with its ISO 4217 code.

APIs want the code, users say the name. The table holds the most traded currencies; the
extraction offers a mention only to parameters about a currency (arguments.filler).
"""

from __future__ import annotations

import re
from typing import NamedTuple

CURRENCIES = {
    "USD": ("US dollar", "U.S. dollar", "United States dollar", "American dollar", "dollar", "buck"),
    "EUR": ("euro",),
    "GBP": ("British pound", "pound sterling", "pound", "sterling", "quid"),
    "JPY": ("Japanese yen", "yen"),
    "CNY": ("Chinese yuan", "yuan", "renminbi", "RMB"),
    "INR": ("Indian rupee", "rupee"),
    "CAD": ("Canadian dollar",),
    "AUD": ("Australian dollar",),
    "NZD": ("New Zealand dollar",),
    "CHF": ("Swiss franc", "franc"),
    "HKD": ("Hong Kong dollar",),
    "SGD": ("Singapore dollar",),
    "SEK": ("Swedish krona", "Swedish kronor"),
    "NOK": ("Norwegian krone", "Norwegian kroner"),
    "DKK": ("Danish krone", "Danish kroner"),
    "KRW": ("South Korean won", "Korean won"),
    "MXN": ("Mexican peso",),
    "BRL": ("Brazilian real", "Brazilian reais"),
    "RUB": ("Russian ruble", "Russian rouble", "ruble", "rouble"),
    "ZAR": ("South African rand", "rand"),
    "TRY": ("Turkish lira",),
    "BTC": ("bitcoin",),
}
CODE_OF_NAME = {name.lower(): code for code, names in CURRENCIES.items() for name in names}
_NAMES = "|".join(re.escape(n) for n in sorted(CODE_OF_NAME, key=len, reverse=True))  # longest first
NAMED_RE = re.compile(r"(?<![\w.])(" + _NAMES + r")(?:e?s)?(?![\w])", re.IGNORECASE)
CODE_RE = re.compile(r"\b(" + "|".join(CURRENCIES) + r")\b")  # as written, in capitals: not "try"


class Mention(NamedTuple):
    text: str  # as written
    code: str  # ISO 4217
    start: int
    end: int


class Currencies:
    """The currency table; it needs no loading."""

    def mentions(self, text: str) -> list[Mention]:
        """Currencies named in the text ("euros" → EUR), then codes written as such. Not "$":
        it belongs to the amount ("$100")."""
        named = [
            Mention(m.group(0), CODE_OF_NAME[m.group(1).lower()], *m.span()) for m in NAMED_RE.finditer(text)
        ]
        return named + [Mention(m.group(0), m.group(0), *m.span()) for m in CODE_RE.finditer(text)]
