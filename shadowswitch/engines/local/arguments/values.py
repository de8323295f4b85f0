"""What a span of the text offers a parameter: its value in the parameter's type (`convert`),
the text the encoder compares, labels and wrapping phrases set aside, and the values a parameter
has without a span (a written list, the schema's default)."""

from __future__ import annotations

import re
from typing import Any

from shadowswitch.engines.local.arguments.extract import Span
from shadowswitch.engines.local.arguments.features import example_shapes
from shadowswitch.engines.local.arguments.grounding import Value, from_default, from_text
from shadowswitch.engines.local.arguments.params import Param, stem
from shadowswitch.engines.local.languages import in_text
from shadowswitch.engines.local.languages.en.dates import asked_format, in_format
from shadowswitch.engines.local.schema import is_valid

ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


UNIT = re.compile(r"\s*-?((?:[^\W\d_][\w/^°%-]*\s*){1,2})")


NUMBERS = ("number", "percent", "wordnum")


def compared_text(span: Span, text: str) -> str:
    """What the encoder compares with a parameter: a number with the unit written after it
    ("100 kilograms", "5 seconds"), which tells weight from height where "100" alone cannot."""
    if span.kind not in NUMBERS:
        return span.text
    unit = UNIT.match(text, span.end)
    return f"{span.text} {unit.group(1).strip()}" if unit else span.text


def schema_default(p: Param) -> Value | None:
    """The schema's default, when it is valid against the schema."""
    if "default" in p.schema and is_valid(p.schema["default"], p.schema):
        return p.schema["default"], from_default()
    return None


def written_list(p: Param, lists: list[Span], text: str) -> Value | None:
    """The first list written in the text that fits (each fills one parameter, reading order)."""
    for span in lists:
        if is_valid(span.value, p.schema):
            lists.remove(span)
            return span.value, from_text(text, span.start, span.end)
    return None


def plain(p: Param) -> bool:
    """Only a type: any value of that type is valid (no pattern, bounds or format)."""
    return set(p.schema) <= {"type", "description", "title", "default", "examples"}


def offered(p: Param, span: Span, text: str) -> bool:
    """Whether every language `text` is written in offers `span` to `p` (巴黎's English name only
    to a parameter whose examples are English: languages.zh.spans.offered)."""
    return all(reader.offered(p.description, span) for reader in in_text(text))


def convert(p: Param, span: Span) -> Any:
    """The span's value in the parameter's type, or None when it cannot be one."""
    value = span.value
    if span.kind == "currency" and "currency" not in p.name_words | p.desc_words:
        return None
    if span.kind == "place" and not wants_region(p):
        return None
    if asks_email(p) and not EMAIL.fullmatch(span.text.strip()):  # not a street, a name, a sentence
        return None
    if p.kind == "string":
        if isinstance(value, int | float) and in_text(span.text):
            return None  # 一 of 一辆车 is a count: a string wants a number as written in digits
        value = span.text if isinstance(value, int | float) else value
        if not isinstance(value, str):
            return None
        if span.kind == "date" and ISO_DAY.match(value) and (fmt := asked_format(p.description)):
            value = in_format(value, fmt) or value
        if span.kind != "quoted":  # a quoted value is exactly what the user means
            value = unlabelled(p, value)
    elif p.kind == "integer":
        if not isinstance(value, int | float) or not float(value).is_integer():
            return None
        value = int(value)
    elif p.kind == "number" and not isinstance(value, int | float):
        return None
    return value if plain(p) or is_valid(value, p.schema) else None


EMAIL_NAME = re.compile(r"(?:^|_)e_?mail(?:_?address)?$")
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


def asks_email(p: Param) -> bool:
    """The parameter is an email address: its schema's `format`, or its name (`email`,
    `customer_email`, `emailAddress`; not `email_subject`)."""
    name = re.sub(r"(?<=[a-z])(?=[A-Z])", "_", p.name).lower()
    return p.schema.get("format") == "email" or bool(EMAIL_NAME.search(name))


LABEL = re.compile(r"(\w+)[\s:#]+(?=\S*\d)(\S+)$")  # a word, then a token with a digit: "ID SK123"


def unlabelled(p: Param, value: str) -> str:
    """An identifier without the word that labels it: "ID SK123" → "SK123" for a product_id,
    when the parameter's name or description holds the label."""
    m = LABEL.match(value)
    if m and stem(m.group(1)) in p.name_words | p.desc_words:
        return m.group(2)
    return value


def wants_region(p: Param) -> bool:
    """A parameter written "City, State" or "City, Country": its description says so or quotes
    an example ('Berkeley, CA', 'Paris, France')."""
    words = p.name_words | p.desc_words
    shapes = example_shapes(p.description)
    said = "city" in words and bool(words & {"state", "country"})
    return said or bool(shapes & {"Aa, A", "Aa, Aa"})


def order_matches(params: list[Param], spans: list[Span]) -> set[tuple[str, int]]:
    """Numeric parameters and numbers both in reading order: the k-th usually gets the k-th."""
    numeric = [p.name for p in params if p.kind in ("integer", "number")]
    starts = sorted({s.start for s in spans if s.kind == "number"})
    return set(zip(numeric, starts, strict=False))


SPECIFIC = ("number", "percent", "date", "quoted", "name", "ident", "currency")


def wrapping(spans: list[Span]) -> set[Span]:
    """Longer spans (phrases, clauses) that hold a specific value inside them: "It's 10.0.0.7, and
    it keeps showing up" holds the address, which is the value, not the sentence around it."""
    inner = [s for s in spans if s.kind in SPECIFIC]
    return {
        s
        for s in spans
        if s.kind not in SPECIFIC
        and any(s.start <= i.start and i.end <= s.end and (i.start, i.end) != (s.start, s.end) for i in inner)
    }


def overlap(a: Span, b: Span) -> bool:
    return a.start < b.end and b.start < a.end
