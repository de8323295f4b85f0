"""A person's name split into the tool's first-name and last-name parameters.

The readers find "Cyrus Nilsen" as one name; a tool that asks for `first_name` and `last_name`
(a customer look-up by name and zip code) wants its first word and its last. Left alone, the
filler gives one parameter the whole name and the other whatever span is left (an order id as a
last name). Where a tool has both parameters and one of them holds a name of two or three
capitalised words read from the text, the name's first word goes to the first name and its last
word to the last name, each with its own span. Where the two parameters already hold two words
that stand side by side in one message ("Delia Walsh"), the first of them is the first name, in
whichever order the filler gave them.
"""

from __future__ import annotations

import re
from typing import Any

from shadowswitch.engines.local.arguments.grounding import Filled, Source
from shadowswitch.engines.local.arguments.params import Param, params_of

FULL_NAME = re.compile(r"[A-Z][a-z'\-]+(?: [A-Z][a-z'\-]+){1,2}")
WORD = re.compile(r"[A-Z][a-z'\-]+")
FIRST = ("first", "given", "fore")
LAST = ("last", "family", "surname")


def split_name(filled: Filled, parameters: dict[str, Any]) -> None:
    """Give the first and the last name parameters their parts of a full name one of them holds."""
    params = [p for p in params_of(parameters) if p.kind == "string"]
    first, last = _named(params, FIRST), _named(params, LAST)
    if first is None or last is None:
        return
    for p in (first, last):
        value, source = filled.arguments.get(p.name), filled.sources.get(p.name) or {}
        if isinstance(value, str) and FULL_NAME.fullmatch(value) and "start" in source:
            words = list(re.finditer(r"\S+", value))
            for param, word in ((first, words[0]), (last, words[-1])):
                filled.put(param.name, (word.group(0), _part(source, word)))
                if param.name in filled.missing:
                    filled.missing.remove(param.name)
            return
    _in_order(filled, first.name, last.name)


def _in_order(filled: Filled, first: str, last: str) -> None:
    """Two name words side by side in one message, given to the parameters in the wrong order
    ("Delia Walsh" read as first name Walsh), swapped: the earlier word is the first name."""
    a, b = filled.sources.get(first) or {}, filled.sources.get(last) or {}
    values = filled.arguments.get(first), filled.arguments.get(last)
    if not all(isinstance(v, str) and WORD.fullmatch(v) for v in values):
        return
    if "start" not in a or "start" not in b or a.get("message") != b.get("message"):
        return
    if int(a["start"]) == int(b["end"]) + 1:  # the last name's word, a space, the first name's
        filled.arguments[first], filled.arguments[last] = values[1], values[0]
        filled.sources[first], filled.sources[last] = b, a


def _named(params: list[Param], words: tuple[str, ...]) -> Param | None:
    """The parameter named as a part of a person's name (`first_name`, `lastName`, `surname`)."""
    found = [p for p in params if any(w in p.name.lower() for w in words) and _is_name(p)]
    return found[0] if len(found) == 1 else None


def _is_name(p: Param) -> bool:
    return "name" in p.name.lower()


def _part(source: Source, word: re.Match[str]) -> Source:
    start = int(source["start"]) + word.start()
    return {**source, "start": start, "end": start + len(word.group(0)), "text": word.group(0)}
