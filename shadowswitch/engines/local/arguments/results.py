"""Values a tool result gives under a key: `{"users": [{"username": "dwhitfield"}]}` gives
`username` = "dwhitfield", with the span of the value in the result's text.

A result is read as JSON (every scalar leaf, with its key and the key of the object or list it
is in), else as plain text lines `key: value` / `key = value`. A leaf goes to a parameter only
when its key names the parameter (`key_names`): the same words ("user_name", "userName",
"user name"), or the key of the object it is in and its own ("ticket": {"id": ...}, "tickets":
[{"id": ...}] for `ticket_id`). Where the results name one parameter with two different values
(a search that found two users), the key is ambiguous and gives no value (`keyed_values`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

Leaf = str | int | float


@dataclass(frozen=True)
class Keyed:
    """A scalar a result gives under `key` (`parent`: the key of the object or list it is in)."""

    key: str
    parent: str | None
    value: Leaf
    start: int  # the value's span in the result's text (a string without its quotes)
    end: int


def words(key: str) -> tuple[str, ...]:
    """A key's words, lower case: "userName", "user_name", "user-name" → ("user", "name")."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", key)
    return tuple(w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w)


def singular(word: str) -> str:
    """A key's word in the singular: "orders" → "order", "entries" → "entry"."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def key_names(entry: Keyed, param: str) -> bool:
    """The entry's key names the parameter: its words, or the words of its parent (singular)
    and its own."""
    wanted = words(param)
    if not wanted:
        return False
    own = words(entry.key)
    if own == wanted:
        return True
    if entry.parent is None:
        return False
    parent = words(entry.parent)
    return bool(parent) and (*parent[:-1], singular(parent[-1]), *own) == wanted


def read_result(text: str) -> list[Keyed]:
    """Every keyed scalar of a tool result's text: JSON if it parses, else `key: value` lines."""
    try:
        data = json.loads(text)
    except ValueError:
        return _lines(text)
    found: list[Keyed] = []
    _walk(data, None, None, text, [0], found)
    return found


def _walk(node: Any, key: str | None, parent: str | None, text: str, at: list[int], out: list[Keyed]) -> None:
    """Leaves in document order; `at[0]` is where the search for the next value's span starts."""
    if isinstance(node, dict):
        for k, v in node.items():
            _walk(v, str(k), key, text, at, out)
        return
    if isinstance(node, list):
        for v in node:
            _walk(v, key, parent, text, at, out)
        return
    if key is None or isinstance(node, bool) or node is None:
        return
    span = _span(node, key, text, at[0])
    if span is None:
        return
    at[0] = span[1]
    out.append(Keyed(key, parent, node, *span))


def _span(value: Leaf, key: str, text: str, start: int) -> tuple[int, int] | None:
    """The span of `"key": value` 's value after `start` (a string's inside of its quotes)."""
    written = json.dumps(value, ensure_ascii=False)
    for encoded in dict.fromkeys((written, json.dumps(value))):
        pattern = re.compile(re.escape(json.dumps(key)) + r"\s*:\s*(" + re.escape(encoded) + ")")
        match = pattern.search(text, start) or pattern.search(text)
        if match:
            begin, end = match.span(1)
            return (begin + 1, end - 1) if isinstance(value, str) else (begin, end)
    return None


LINE = re.compile(r"^[ \t]*([A-Za-z][\w .-]{0,40}?)[ \t]*[:=][ \t]*(\S.*?)[ \t]*$", re.MULTILINE)
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _lines(text: str) -> list[Keyed]:
    found = []
    for match in LINE.finditer(text):
        raw = match.group(2)
        value: Leaf = raw
        if NUMBER.fullmatch(raw):
            value = float(raw) if "." in raw else int(raw)
        found.append(Keyed(match.group(1), None, value, *match.span(2)))
    return found


def keyed_values(results: list[tuple[int, str]], param: str) -> list[tuple[int, Keyed]]:
    """(message index, entry) of every result entry whose key names `param`; none when they
    give two different values (an ambiguous key gives no value)."""
    named = [(i, e) for i, text in results for e in read_result(text) if key_names(e, param)]
    distinct = {json.dumps(e.value) for _, e in named}
    return named if len(distinct) == 1 else []
