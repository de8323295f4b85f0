"""The value memory: every value of a request with where it is, read once per message."""

from __future__ import annotations

import json
from datetime import date

from shadowswitch.engines.local.arguments.memory import MemoryReader, result_entries
from shadowswitch.engines.local.arguments.today import Today
from tests.support.conversations import ORDERS, walk


def test_json_leaves_keep_their_paths_and_spans() -> None:
    text = json.dumps(ORDERS)
    entries = {e.path: e for e in result_entries(text)}
    assert set(entries) == {"customer.id", "orders[0].order_id", "orders[1].order_id"}
    second = entries["orders[1].order_id"]
    assert (second.pattern, second.index, second.key, second.parent) == (
        "orders[].order_id",
        1,
        "order_id",
        "orders",
    )
    assert text[second.start : second.end] == "ORD-1002"


def test_plain_text_results_are_read_as_spans_and_lines() -> None:
    found = {(e.path, e.value) for e in result_entries("Order: ORD-1001\nshipped on 2027-03-02 to Ann Lee")}
    assert ("Order", "ORD-1001") in found
    assert ("", "2027-03-02") in found


def test_every_message_is_read_with_its_role_and_calls_count_as_used() -> None:
    memory = MemoryReader().read(walk("ORD-1001"), Today(date(2027, 3, 10)))
    roles = {(f.role, f.entry.value) for f in memory}
    assert ("call", "ORD-1001") in roles and ("tool", "ORD-1002") in roles
    assert ("system", "2027-03-10") in roles
    assert memory.used == {json.dumps("ord-1001")}


def test_a_message_is_read_once_whatever_the_step() -> None:
    reader = MemoryReader()
    reader.read(walk("ORD-1001"), Today(date(2027, 3, 10)))
    misses = reader.cache.misses
    reader.read(walk("ORD-1001", "ORD-1002"), Today(date(2027, 3, 10)))
    assert reader.cache.misses == misses + 1  # only the new result: the new call is not text
