"""Earlier user turns' readings kept across a conversation's steps (arguments/readings.py): a step
that finds them kept decides as one that reads every turn again, and the kept ones are bounded."""

from __future__ import annotations

import json
from typing import Any

from shadowswitch.engines.local.arguments.memory import MemoryReader
from shadowswitch.engines.local.arguments.readings import TurnReadings
from shadowswitch.engines.local.arguments.today import CLOCK
from shadowswitch.policy.models import Policy
from tests.support.arguments import FILLER
from tests.support.engine_requests import tool
from tests.support.policies import ROOMY

EVERY_CHOICE = {"scorer": "embedding", "min_confidence": 0.0, "min_margin": 0.0}
POLICY = Policy(task_type="t", engine={**ROOMY, **EVERY_CHOICE})
ORDER_ID = {"type": "string", "description": "The order id, like LK123456"}
TOOLS = [
    tool("get_order", "Read an order: its items, status and address", {"order_id": ORDER_ID}, ["order_id"]),
    tool("cancel_order", "Cancel an order that has not shipped", {"order_id": ORDER_ID}, ["order_id"]),
]
POLICY_PROMPT = "You are the shop's assistant. Be brief. Confirm before you cancel anything. " * 40


def conversation(steps: int) -> dict[str, Any]:
    """A conversation whose last turn does not say the order id the earlier turns gave; `steps`
    agent steps after it (each a call and its result)."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": POLICY_PROMPT},
        {"role": "user", "content": "Hi, my order LK123456 has not arrived yet."},
        {"role": "assistant", "content": "Sorry to hear that. What would you like to do?"},
        {"role": "user", "content": "My name is Ann Lee, by the way."},
        {"role": "assistant", "content": "Thanks, Ann. How can I help with the order?"},
        {"role": "user", "content": "Please cancel that order, I no longer need it."},
    ]
    for i in range(steps):
        call = {"id": f"c{i}", "type": "function", "function": {"name": "get_order", "arguments": "{}"}}
        messages.append({"role": "assistant", "tool_calls": [call]})
        result = {"status": "error", "message": f"order id missing ({i})"}
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": json.dumps(result)})
    return {"messages": messages, "tools": TOOLS}


def outcome(choice: Any) -> tuple[Any, ...]:
    return (choice.kind, choice.name, choice.arguments, choice.sources, choice.abstain_reason)


def test_a_step_with_kept_readings_decides_as_one_reading_every_turn_again(engine: Any) -> None:
    decider = engine.engine
    kept, memories = decider.readings, decider.memories
    decider.readings = TurnReadings()
    try:
        engine.decide_sync(conversation(0), POLICY)  # the first step reads the earlier turns
        hits = decider.readings.cache.hits
        later = [engine.decide_sync(conversation(n), POLICY) for n in (1, 2)]
        assert decider.readings.cache.hits > hits, "the later steps found no reading kept"
        decider.readings = TurnReadings(0)  # nothing kept: every turn read again
        decider.memories = MemoryReader(decider.filler.knowledge, size=0)
        again = [engine.decide_sync(conversation(n), POLICY) for n in (1, 2)]
    finally:
        decider.readings, decider.memories = kept, memories
    assert [outcome(c) for c in later] == [outcome(c) for c in again]
    assert later[0].sources["order_id"]["message"] in (1, 3)  # read in an earlier user turn


def test_the_kept_readings_are_bounded_and_each_caller_gets_its_own_copy() -> None:
    readings = TurnReadings(size=3)
    read = readings.fill_text(FILLER.fill, CLOCK)
    schema = {"type": "object", "properties": {"order_id": ORDER_ID}, "required": ["order_id"]}
    for n in range(10):
        read(schema, f"my order is LK10000{n}")
    assert len(readings.cache) == 3
    first = read(schema, "my order is LK100009")
    assert readings.cache.hits == 1 and first.arguments == {"order_id": "LK100009"}
    first.arguments["order_id"] = "changed"
    assert read(schema, "my order is LK100009").arguments == {"order_id": "LK100009"}
    other = {**schema, "properties": {"order_id": {"type": "string"}}}
    read(other, "my order is LK100009")  # another tool's schema: another reading
    assert readings.cache.hits == 2
