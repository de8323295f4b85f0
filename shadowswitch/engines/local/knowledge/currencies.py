"""Currencies as people write them ("Japanese yen", "euros", 欧元), each with its ISO 4217 code.

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
# As written in Chinese. No bare 元/块: they follow any amount, in whatever currency the text means.
CURRENCIES_ZH = {
    "USD": ("美元", "美金"),
    "EUR": ("欧元",),
    "GBP": ("英镑",),
    "JPY": ("日元", "日圆"),
    "CNY": ("人民币",),
    "INR": ("印度卢比", "卢比"),
    "CAD": ("加拿大元", "加元"),
    "AUD": ("澳大利亚元", "澳元"),
    "NZD": ("新西兰元", "纽元"),
    "CHF": ("瑞士法郎",),
    "HKD": ("港币", "港元"),
    "SGD": ("新加坡元", "新币"),
    "SEK": ("瑞典克朗",),
    "NOK": ("挪威克朗",),
    "DKK": ("丹麦克朗",),
    "KRW": ("韩元",),
    "MXN": ("墨西哥比索",),
    "BRL": ("巴西雷亚尔",),
    "RUB": ("卢布",),
    "ZAR": ("南非兰特",),
    "TRY": ("土耳其里拉",),
    "BTC": ("比特币",),
}
CODE_OF_NAME = {name.lower(): code for code, names in CURRENCIES.items() for name in names}
CODE_OF_NAME_ZH = {name: code for code, names in CURRENCIES_ZH.items() for name in names}
# Chinese has no spaces between words: the names are matched where they stand, longest first.
NAMED_ZH_RE = re.compile("|".join(sorted(CODE_OF_NAME_ZH, key=len, reverse=True)))
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
        named += [Mention(m[0], CODE_OF_NAME_ZH[m[0]], *m.span()) for m in NAMED_ZH_RE.finditer(text)]
        return named + [Mention(m.group(0), m.group(0), *m.span()) for m in CODE_RE.finditer(text)]
