"""The languages the engine reads values in: one package per language behind `Reader`.

English is the base: the patterns every text is read with (arguments.extract) are written for
it, and `en` adds its words and dates. Every other language adds what a text written in it holds
(`zh`: numerals, dates, phrases cut without spaces, label words). A new language is a folder
with a module-level `READER` and one line in `REGISTRY` (docs/engine.md shows a skeleton).
"""

from __future__ import annotations

from functools import cache, lru_cache
from importlib import import_module

from shadowswitch.engines.local.languages.base import Glossed, PlaceOf, Reader, Span

REGISTRY = {
    "en": "shadowswitch.engines.local.languages.en",
    "zh": "shadowswitch.engines.local.languages.zh",
}
BASE = "en"

__all__ = ["BASE", "REGISTRY", "Glossed", "PlaceOf", "Reader", "Span", "in_text", "reader", "readers"]


@cache
def reader(code: str) -> Reader:
    """The reader registered under `code`, imported on first use."""
    found: Reader = import_module(REGISTRY[code]).READER
    return found


def readers() -> list[Reader]:
    """Every registered reader, the base first."""
    return [reader(code) for code in REGISTRY]


@lru_cache(maxsize=512)
def in_text(text: str) -> tuple[Reader, ...]:
    """The readers of the languages other than the base that `text` is written in (asked for
    every value of a request: cached)."""
    return tuple(r for r in readers() if r.code != BASE and r.writes(text))
