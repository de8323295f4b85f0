"""US postal addresses in text, split into the fields a tool takes (line1, line2, city, state, zip).

Customer-service tools take an address as fields (`line1`, `city`, `state`, `zip`) while people
write it on one line ("241 Quarry Drive, Apt 5, Boise, ID 95435"). `usaddress` (MIT; a CRF trained
on US addresses) labels the words of an address. Given a whole sentence it also labels words that
are no address ("order LK480428 is 241 ..." as a recipient), so it only sees windows that run
from a house number to a zip code, and an address is read only when the labels come in an
address's order with no label outside it; anything else reads nothing. Each field is a span of
the text: nothing is rewritten, a value is copied as written.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

import usaddress

ZIP = re.compile(r"\b\d{5}(?:-\d{4})?\b")
COUNTRY = re.compile(r"\s*,?\s*(?:USA|U\.S\.A\.|United States(?: of America)?|US)\b")
NUMBER = re.compile(r"(?<![\w-])\d{1,6}(?=\s+[A-Za-z0-9])")
REACH = 120  # the most characters from a house number to its zip code
MAX_ZIPS = 16  # zip codes tried in one text (a pasted table of numbers is no list of addresses)
MAX_STARTS = 4  # house numbers tried before one zip code, nearest first
# The labels of each field, in the order an address writes them (usaddress's tag names)
FIELDS: tuple[tuple[str, frozenset[str]], ...] = (
    (
        "line1",
        frozenset(
            (
                "AddressNumber",
                "AddressNumberSuffix",
                "StreetNamePreDirectional",
                "StreetNamePreModifier",
                "StreetNamePreType",
                "StreetName",
                "StreetNamePostType",
                "StreetNamePostDirectional",
                "StreetNamePostModifier",
            )
        ),
    ),
    ("line2", frozenset(("OccupancyType", "OccupancyIdentifier", "SubaddressType", "SubaddressIdentifier"))),
    ("city", frozenset(("PlaceName",))),
    ("state", frozenset(("StateName",))),
    ("zip", frozenset(("ZipCode",))),
    ("country", frozenset(("CountryName",))),
)
REQUIRED = ("line1", "city", "state", "zip")
STATE = re.compile(r"[A-Z]{2}|[A-Z][a-z]+(?: [A-Z][a-z]+)?")  # "ID", "Idaho", "New York"
FIELD_NAMES = tuple(name for name, _ in FIELDS)
ORDER = {label: i for i, (_, labels) in enumerate(FIELDS) for label in labels}  # label → its field's place


@dataclass(frozen=True)
class Part:
    """One field of an address: its name, its text as written, and its span."""

    field: str
    text: str
    start: int
    end: int


def addresses(text: str) -> list[tuple[Part, ...]]:
    """The addresses `text` writes out in full (street, city, state and zip), each as its fields;
    an address read unsure is left out. (The value memory reads each message once: no cache here.)"""
    out: list[tuple[Part, ...]] = []
    taken = 0
    for zip_code in itertools.islice(ZIP.finditer(text), MAX_ZIPS):  # no zip code: no parse at all
        country = COUNTRY.match(text, zip_code.end())
        end = country.end() if country else zip_code.end()
        window = (max(taken, zip_code.start() - REACH), zip_code.start())
        starts = [m.start() for m in NUMBER.finditer(text, *window)]
        for start in reversed(starts[-MAX_STARTS:]):  # the nearest first: "order 12 to 241 ..." is 241
            parts = _read(text, start, end)
            if parts:
                out.append(parts)
                taken = end
                break
    return out


def _read(text: str, start: int, end: int) -> tuple[Part, ...] | None:
    """The window's fields, or None unless it is an address and nothing else."""
    try:
        labelled = usaddress.parse(text[start:end])
    except Exception:  # the tagger's own errors mean: not read
        return None
    tokens: list[tuple[str, int, int]] = []  # field, start, end of each word
    at, last = start, 0
    for word, label in labelled:
        if label not in ORDER or ORDER[label] < last:
            return None  # a word no address has, or a field out of its place
        last = ORDER[label]
        found = text.find(word, at, end)
        if found < 0:
            return None
        tokens.append((FIELDS[ORDER[label]][0], found, found + len(word)))
        at = found + len(word)
    parts: dict[str, tuple[int, int]] = {}
    for field, s, e in tokens:
        first = parts.get(field, (s, e))[0]
        parts[field] = (first, e)
    if any(name not in parts for name in REQUIRED):
        return None
    out = []
    for name in FIELD_NAMES:
        if name in parts:
            s, e = parts[name]
            written = text[s:e].rstrip(" ,.;")
            out.append(Part(name, written, s, s + len(written)))
    read = {p.field: p.text for p in out}
    if not STATE.fullmatch(read["state"]) or not ZIP.fullmatch(read["zip"]):
        return None
    return tuple(out)


# A parameter's name, lower case and letters and digits only, → the address field it takes
NAMED = {
    "line1": (
        "line1",
        "address1",
        "addressline1",
        "addr1",
        "street",
        "streetaddress",
        "street1",
        "streetline1",
    ),
    "line2": ("line2", "address2", "addressline2", "addr2", "street2", "streetline2", "apt", "unit", "suite"),
    "city": ("city", "town", "locality"),
    "state": ("state", "province", "region", "stateprovince"),
    "zip": ("zip", "zipcode", "postalcode", "postcode", "zip5"),
    "country": ("country",),
}
FIELD_OF = {name: field for field, names in NAMED.items() for name in names}


def field_of(param: str) -> str:
    """The address field a parameter's name says it takes (`address_line_1`, `zipCode`), or ""."""
    return FIELD_OF.get(re.sub(r"[^a-z0-9]", "", param.lower()), "")
