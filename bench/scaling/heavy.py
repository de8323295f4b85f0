"""A heavy agent step: a customer-service tool whose schema nests arrays of objects, and a
conversation of about 6,000 tokens (order look-ups returned as JSON, several user turns).

Every step is distinct (its order numbers, products and wording come from its index), so no
cache of the engine flatters a run. Used by `bench beside` (bench/scaling/beside.py) and the tests
of the time budget: the heavy agent in shadow with learning on, beside short requests served
locally. `answer` is the upstream's call for a step, so that learning has a nested call to learn.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

PRODUCTS = ("kettle", "toaster", "blender", "lamp", "backpack", "jacket", "headphones", "mug", "pan")
CITIES = ("Lisbon", "Porto", "Madrid", "Lyon", "Turin", "Ghent", "Leeds", "Cork", "Bremen", "Graz")
COLOURS = ("red", "blue", "black", "white", "green", "grey")


def _object(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required}


ITEM = _object(
    {
        "sku": {"type": "string", "description": "the product's stock code"},
        "quantity": {"type": "integer", "description": "how many"},
        "options": {
            "type": "array",
            "description": "chosen options of the product",
            "items": _object({"name": {"type": "string"}, "value": {"type": "string"}}, ["name", "value"]),
        },
    },
    ["sku", "quantity"],
)
UPDATE_ORDER = {
    "type": "function",
    "function": {
        "name": "update_order",
        "description": "Change the items and the delivery of an order that has not shipped yet",
        "parameters": _object(
            {
                "order_id": {"type": "string", "description": "the order number, like ORD-12345"},
                "items": {"type": "array", "description": "the items after the change", "items": ITEM},
                "shipping": _object(
                    {
                        "address": _object(
                            {"street": {"type": "string"}, "city": {"type": "string"}},
                            ["street", "city"],
                        ),
                        "method": {"type": "string", "enum": ["standard", "express"]},
                    },
                    ["address"],
                ),
            },
            ["order_id", "items"],
        ),
    },
}
LOOKUP = {
    "type": "function",
    "function": {
        "name": "lookup_order",
        "description": "Look up an order by its number",
        "parameters": _object({"order_id": {"type": "string"}}, ["order_id"]),
    },
}
ESCALATE = {
    "type": "function",
    "function": {
        "name": "escalate_to_human",
        "description": "Hand the conversation to a human agent",
        "parameters": _object({"reason": {"type": "string"}}, ["reason"]),
    },
}
HEAVY_TOOLS = [UPDATE_ORDER, LOOKUP, ESCALATE]
SYSTEM = (
    "You are the customer-service agent of an online shop. Look orders up before changing them, "
    "never change an order that has shipped, and confirm every change with the customer. "
)


def _order(rng: random.Random, order_id: str) -> dict[str, Any]:
    items = [
        {
            "sku": f"SKU-{rng.randrange(10000, 99999)}",
            "name": rng.choice(PRODUCTS),
            "quantity": rng.randrange(1, 4),
            "options": [{"name": "colour", "value": rng.choice(COLOURS)}],
            "price_eur": round(rng.uniform(5, 200), 2),
        }
        for _ in range(6)
    ]
    history = [{"at": f"2026-11-{d:02d}T10:00:00Z", "event": "status checked"} for d in range(1, 25)]
    address = {"street": f"{rng.randrange(1, 200)} Rua Augusta", "city": rng.choice(CITIES)}
    return {"order_id": order_id, "status": "processing", "items": items, "address": address, "log": history}


def heavy_step(index: int, target_tokens: int = 6000) -> dict[str, Any]:
    """One request of the heavy agent: about `target_tokens` tokens (4 characters each) of
    conversation, the last user turn asking to change an order's items (`update_order`)."""
    rng = random.Random(index)
    messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM * 4}]
    turn = 0
    while sum(len(json.dumps(m)) for m in messages) < target_tokens * 4:
        order_id = f"ORD-{rng.randrange(10000, 99999)}"
        call = {"id": f"call_{index}_{turn}", "type": "function"}
        call["function"] = {"name": "lookup_order", "arguments": json.dumps({"order_id": order_id})}
        messages += [
            {"role": "user", "content": f"Hi, can you check order {order_id} for me? It is step {turn}."},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": call["id"], "content": json.dumps(_order(rng, order_id))},
            {"role": "assistant", "content": f"Order {order_id} is still processing."},
        ]
        turn += 1
    sku, colour = f"SKU-{rng.randrange(10000, 99999)}", rng.choice(COLOURS)
    ask = (
        f"Please change order {order_id}: I want {rng.randrange(2, 5)} of {sku} in {colour}, "
        f"delivered to {rng.randrange(1, 200)} Main Street, {rng.choice(CITIES)}."
    )
    messages.append({"role": "user", "content": ask})
    return {"model": "heavy-agent", "messages": messages, "tools": HEAVY_TOOLS}


ASK = re.compile(
    r"change order (?P<order>ORD-\d+): I want (?P<quantity>\d+) of (?P<sku>SKU-\d+) in (?P<colour>\w+), "
    r"delivered to (?P<street>[^,]+), (?P<city>\w+)\."
)


def answer(body: dict[str, Any]) -> dict[str, Any] | None:
    """The upstream's `update_order` call for a heavy step (None: not one): what its last user
    turn asks for, nested as the tool's schema wants it."""
    messages = body.get("messages") or []
    found = ASK.search(str(messages[-1].get("content") or "")) if messages else None
    if found is None:
        return None
    item = {"sku": found["sku"], "quantity": int(found["quantity"])}
    item["options"] = [{"name": "colour", "value": found["colour"]}]
    arguments = {
        "order_id": found["order"],
        "items": [item],
        "shipping": {"address": {"street": found["street"], "city": found["city"]}},
    }
    call = {"name": "update_order", "arguments": json.dumps(arguments)}
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "call_up", "type": "function", "function": call}],
    }
