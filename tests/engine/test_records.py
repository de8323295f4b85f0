"""Which record of a tool result the conversation names: an id is chosen by its record."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

from shadowswitch.engines.local.arguments.memory import MemoryReader
from shadowswitch.engines.local.arguments.params import params_of
from shadowswitch.engines.local.arguments.pointer import offers
from shadowswitch.engines.local.arguments.records import record_of
from shadowswitch.engines.local.arguments.today import Today
from shadowswitch.request import ChatView

CUSTOMER = {
    "customer_id": "cus_1",
    "address": {"line1": "811 Birch Avenue", "city": "Salem", "zip": "95287"},
    "payment_methods": [
        {"payment_id": "pm_card_1564", "kind": "card", "brand": "Amex", "last4": "1689"},
        {"payment_id": "pm_card_9921", "kind": "card", "brand": "Visa", "last4": "4242"},
    ],
}
CHANGE = {
    "type": "function",
    "function": {
        "name": "change_order_payment",
        "parameters": {
            "type": "object",
            "properties": {"order_id": {"type": "string"}, "payment_id": {"type": "string"}},
            "required": ["order_id", "payment_id"],
        },
    },
}


def conversation(user: str, reply: str) -> ChatView:
    call = {"id": "c1", "type": "function", "function": {"name": "get_customer", "arguments": "{}"}}
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": user},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps(CUSTOMER)},
        {"role": "assistant", "content": reply},
        {"role": "user", "content": "yes"},
    ]
    return ChatView.parse({"model": "agent", "messages": messages, "tools": [CHANGE]})


def payment_offers(view: ChatView, learned: dict[str, float] | None = None) -> list[Any]:
    memory = MemoryReader().read(view, Today(date(2027, 3, 10)))
    tool = view.tool("change_order_payment")
    assert tool is not None
    param = next(p for p in params_of(tool.parameters) if p.name == "payment_id")
    return offers(param, memory, learned, "change_order_payment")


def test_a_record_is_the_object_a_value_is_a_key_of() -> None:
    assert record_of("payment_methods[1].payment_id") == "payment_methods[1]"
    assert record_of("items[0].options.color") == "items[0].options"
    assert record_of("order_id") == "" and record_of("orders[2]") == ""  # the whole result


def test_the_id_of_the_record_the_user_and_the_reply_name_is_marked() -> None:
    view = conversation("Charge it to my Amex card instead.", "I'll use your Amex card ending 1689. OK?")
    features = {o.value: o.features for o in payment_offers(view)}
    assert features["pm_card_1564"].get("record_said") == 1.0  # "Amex": its `brand`
    assert features["pm_card_1564"].get("record_mentioned") == 1.0  # "1689": its `last4`
    assert (
        "record_said" not in features["pm_card_9921"] and "record_mentioned" not in features["pm_card_9921"]
    )


def test_nothing_named_marks_nothing_and_only_ids_are_chosen_by_their_record() -> None:
    view = conversation("Please change how I pay for it.", "Which payment method would you like?")
    assert not any(k.startswith("record_") for o in payment_offers(view) for k in o.features)
    said = conversation("I live at 811 Birch Avenue, charge it to the Amex.", "OK?")
    memory = MemoryReader().read(said, Today(date(2027, 3, 10)))
    city = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    marked = {
        o.found.entry.key
        for o in offers(params_of(city)[0], memory, None, "update_address")
        if "record_said" in o.features
    }
    assert "customer_id" in marked and not marked & {"line1", "city", "zip"}  # ids only


def test_a_learned_weight_on_the_named_record_puts_its_id_before_the_others() -> None:
    view = conversation("Charge it to my Amex card instead.", "I'll use your Amex card ending 1689. OK?")

    def order(learned: dict[str, float] | None) -> list[Any]:
        values = [o.value for o in payment_offers(view, learned)]
        return [v for v in values if str(v).startswith("pm_")]

    assert order(None) == ["pm_card_9921", "pm_card_1564"]  # the prior: not the list's first
    assert order({"record_said": 2.0, "record_mentioned": 2.0}) == ["pm_card_1564", "pm_card_9921"]


def test_the_records_own_value_is_stale_and_a_list_of_options_is_not() -> None:
    """`change_order_payment` replaces the order's `payment_id`; the customer's methods under the
    same name are what it may be changed to. Before, every one was stale, and the learned weight
    on the order named by the user ("the daypack") then chose the order's own method."""
    view = conversation("Charge it to my Amex card instead.", "I'll use your Amex card ending 1689. OK?")
    order = {"order_id": "LK1", "items": [{"name": "daypack"}], "payment_id": "pm_gift_77"}
    call = {
        "id": "c2",
        "type": "function",
        "function": {"name": "get_order", "arguments": '{"order_id": "LK1"}'},
    }
    messages = [
        *view.messages[:3],
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c2", "content": json.dumps(order)},
        *view.messages[3:],
    ]
    found = payment_offers(ChatView.parse({"model": "agent", "messages": messages, "tools": [CHANGE]}))
    places = {(o.value, o.found.entry.path): o.features for o in found if str(o.value).startswith("pm_")}
    assert places[("pm_card_1564", "payment_methods[0].payment_id")].get("stale") is None
    assert places[("pm_card_9921", "payment_methods[1].payment_id")].get("stale") is None
    assert places[("pm_gift_77", "payment_id")].get("stale") == 1.0  # the order's own
