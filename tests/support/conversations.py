"""Conversations of an agent that lists records and looks them up, for the value memory's tests."""

from __future__ import annotations

import json
from typing import Any

from shadowswitch.request import ChatView

ORDERS = {"customer": {"id": "C-77"}, "orders": [{"order_id": "ORD-1001"}, {"order_id": "ORD-1002"}]}
GET_ORDER = {
    "type": "object",
    "properties": {"order_id": {"type": "string", "description": "The order's id"}},
    "required": ["order_id"],
}


def call(name: str, arguments: dict[str, Any], call_id: str) -> dict[str, Any]:
    function = {"name": name, "arguments": json.dumps(arguments)}
    return {"role": "assistant", "tool_calls": [{"id": call_id, "type": "function", "function": function}]}


def result(content: Any, call_id: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": json.dumps(content)}


def request(*messages: dict[str, Any], parameters: dict[str, Any] = GET_ORDER) -> ChatView:
    tool = {"type": "function", "function": {"name": "get_order", "parameters": parameters}}
    return ChatView.parse({"model": "agent", "messages": list(messages), "tools": [tool]})


def walk(*looked_up: str) -> ChatView:
    """The agent listed the orders and has looked `looked_up` up, one call each."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are the shop's back office. Today is 2027-03-10."},
        {"role": "user", "content": "Where are all my orders?"},
        call("list_orders", {}, "c0"),
        result(ORDERS, "c0"),
    ]
    for i, order in enumerate(looked_up, 1):
        found = {"order_id": order, "status": "shipped"}
        messages += [call("get_order", {"order_id": order}, f"c{i}"), result(found, f"c{i}")]
    return request(*messages)
