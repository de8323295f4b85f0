"""An array parameter filled from a list of a tool result, or left missing.

An array of objects is filled record by record from a list of a tool result whose records have a
value for each of the item's required fields (a key naming the field), as many items as the list
has records; an array of scalars from a list whose key names the parameter; else nothing. The
newest list that gives a valid value is taken; its provenance is the list's path (`lines[]`) and
the number of items.
"""

from __future__ import annotations

from typing import Any

from shadowswitch.engines.local.arguments.grounding import Source
from shadowswitch.engines.local.arguments.memory import Found, ValueMemory
from shadowswitch.engines.local.arguments.params import Param, stem
from shadowswitch.engines.local.arguments.results import words
from shadowswitch.engines.local.schema import is_valid


def array_value(p: Param, memory: ValueMemory) -> tuple[Any, Source] | None:
    """An array parameter from a list of a tool result: records for objects, values for scalars."""
    found = p.schema.get("items")
    items: dict[str, Any] = found if isinstance(found, dict) else {}
    lists = _lists(memory)
    for (message, prefix), records in reversed(list(lists.items())):  # the newest list first
        if items.get("type") == "object" or items.get("properties"):
            value = _objects(items, records)
        else:
            value = _values(p, prefix, records)
        if value is not None and is_valid(value, p.schema):
            path = prefix + "[]"
            return value, {
                "source": "text",
                "message": message,
                "role": "tool",
                "path": path,
                "items": len(value),
            }
    return None


Record = dict[str, Found]  # a list item's leaves by their path below the item


def _lists(memory: ValueMemory) -> dict[tuple[int, str], list[Record]]:
    """Every list of the tool results: (message, path of the list) → its items' leaves."""
    out: dict[tuple[int, str], dict[int, Record]] = {}
    for found in memory:
        entry = found.entry
        if found.role != "tool" or entry.index < 0:
            continue
        cut = entry.pattern.rfind("[]")
        prefix, rest = entry.pattern[:cut], entry.pattern[cut + 2 :].lstrip(".")
        out.setdefault((found.message, prefix), {}).setdefault(entry.index, {})[rest] = found
    return {slot: [items[i] for i in sorted(items)] for slot, items in out.items()}


def _objects(items: dict[str, Any], records: list[Record]) -> list[dict[str, Any]] | None:
    """Each record as an item: every property the item schema has, from the record's leaf whose
    key names it; None unless each record gives every required property."""
    props = items.get("properties") or {}
    required = set(items.get("required") or props)
    out = []
    for record in records:
        item: dict[str, Any] = {}
        for name in props:
            leaf = _named(name, record)
            if leaf is not None:
                item[name] = leaf.entry.value
        if not required <= set(item) or not is_valid(item, items):
            return None
        out.append(item)
    return out or None


def _named(name: str, record: Record) -> Found | None:
    """The record's leaf whose key names the property: the same words, or the last of them."""
    wanted = tuple(stem(w) for w in words(name))
    for rest, found in record.items():
        own = tuple(stem(w) for w in words(rest.rsplit(".", 1)[-1]))
        if own and (own == wanted or (len(own) == 1 and own[0] == wanted[-1] and len(wanted) > 1)):
            return found
    return None


def _values(p: Param, prefix: str, records: list[Record]) -> list[Any] | None:
    """A list of scalars whose key (the list's, or its items' one leaf) names the parameter."""
    wanted = {stem(w.rstrip("s")) for w in words(p.name)}
    out = []
    for record in records:
        if len(record) != 1:
            return None
        rest, found = next(iter(record.items()))
        out.append(found.entry.value)
        named = {stem(w.rstrip("s")) for w in words(prefix.rsplit(".", 1)[-1]) + words(rest)}
        if not wanted <= named:
            return None
    return out or None
