"""Where each argument value comes from, and whether a written value is in the conversation.

The engine never invents a value: every value of a local answer carries its provenance, a small
JSON object keyed by `source`:

- `text`: read from a span of the conversation (`message`: its index in the request's
  messages, `start`, `end`, `text`: that slice; `key`: for a value a tool result gave under a
  key naming the parameter, that key; see `elsewhere.py`). The value is the span in the parameter's type:
  "$1M" gives 1000000, "euros" EUR, "Los Angeles" "Los Angeles, CA".
- `default`: the schema's `default`.
- `decoded`: written by the grammar decoder, and kept only when `grounded`: every scalar leaf is
  in the text, strings as case-insensitive substrings, numbers among the numbers written there.
  A boolean or null leaf, an empty string, or a value with no leaf at all (`[]`, `{}`) is not
  in any text, so such a value is not grounded.
- `enum_choice`: an enum option picked by meaning from a phrase of the text (the phrase's span
  and the `similarity`).
- `learned_transform`: a value read from the text (`from`, and its span), rewritten the way the
  agent's upstream writes it (`transform`, a rewrite of `rewrites.py`) by a learned state
  (`state_version`); `learned`: a learned state's constant (`arguments/learned.py`).

A nested object filled part by part gets the stretch of text its parts came from (else how they
were found), and its parts' own provenance under `properties`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from shadowswitch.engines.local.arguments.extract import numbers

Source = dict[str, Any]
Value = tuple[Any, Source]  # a value and where it comes from
MISSING_PREFIX = "missing_value:"
GROUNDED = ("text", "decoded", "enum_choice")  # the sources read from the conversation


@dataclass(frozen=True)
class Read:
    """A parameter's scored values in the text it was filled from: what a learned value ranking
    (`learning/values.py`) is fitted on. Never stored: an exemplar keeps the features and which
    value was picked and which was the upstream's, not the values."""

    values: tuple[Any, ...]
    features: tuple[dict[str, float], ...]  # each with `base`: its score before a learned ranking
    picked: int  # the index of the value filled, -1 for none
    first: int = -1  # the index of the value a learned ranking puts first (-1: not known)


@dataclass
class Filled:
    """Arguments with their provenance, and the required ones nothing grounded (in order)."""

    arguments: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, Source] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    read: dict[str, Read] = field(default_factory=dict)  # text and number parameters' scored values

    def put(self, name: str, value: Value) -> None:
        self.arguments[name], self.sources[name] = value

    @property
    def abstain_reason(self) -> str | None:
        """`missing_value:<name>` for the first required value not found, else None."""
        return missing_reason(self.missing[0]) if self.missing else None


def missing_reason(name: str) -> str:
    return f"{MISSING_PREFIX}{name}"


def from_text(text: str, start: int, end: int) -> Source:
    return {"source": "text", "start": start, "end": end, "text": text[start:end]}


def by_meaning(text: str, start: int, end: int, similarity: float) -> Source:
    return {**from_text(text, start, end), "source": "enum_choice", "similarity": round(similarity, 4)}


def from_default() -> Source:
    return {"source": "default"}


def from_decoder() -> Source:
    return {"source": "decoded"}


def of_parts(parts: dict[str, Source], text: str) -> Source:
    """One provenance for a nested object: the stretch of text its parts were read from, else
    `decoded` when the decoder wrote one of them, else `default`."""
    spans = [s for s in parts.values() if "start" in s]
    if spans:
        head = from_text(text, min(s["start"] for s in spans), max(s["end"] for s in spans))
    else:
        kinds = {s["source"] for s in parts.values()}
        head = from_decoder() if "decoded" in kinds else from_default()
    return {**head, "properties": parts}


def at_message(sources: dict[str, Source], message: int | None) -> dict[str, Source]:
    """The sources with the index of the message their spans are in (nested parts too)."""
    return {name: in_message(source, message) for name, source in sources.items()}


def in_message(source: Source, message: int | None) -> Source:
    """A source whose span (if any) is in the request's message number `message`, unless it
    already names its message (a value read from another turn or a tool result)."""
    if message is None or "message" in source:
        return source
    out = {**source, "message": message} if "start" in source else dict(source)
    if isinstance(source.get("properties"), dict):
        out["properties"] = at_message(source["properties"], message)
    return out


DIGITS = re.compile(r"-?\d+(?:\.\d+)?")


def grounded(value: Any, text: str) -> bool:
    """Every scalar leaf of `value` is in `text` (see the module docstring); some leaf exists."""
    found = leaves(value)
    if not found:
        return False
    lowered = text.lower()
    written = {float(s.value) for s in numbers(text) if isinstance(s.value, int | float)}
    written |= {float(m.group(0)) for m in DIGITS.finditer(text)}
    return all(_leaf_in(leaf, lowered, written) for leaf in found)


def leaves(value: Any) -> list[Any]:
    """Every scalar of a JSON value, in order."""
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in leaves(v)]
    return [value]


def _leaf_in(leaf: Any, lowered: str, written: set[float]) -> bool:
    if isinstance(leaf, bool) or leaf is None:
        return False
    if isinstance(leaf, int | float):
        return float(leaf) in written
    return isinstance(leaf, str) and bool(leaf.strip()) and leaf.lower() in lowered
