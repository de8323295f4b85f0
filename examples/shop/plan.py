"""The policy a good model follows, as a function: the conversation's state → its next step.

Authenticate, read the customer's record, find the order (by the id the customer gave, or by
walking the record's orders one at a time), read what the change needs, ask for what is missing,
confirm, write once on a yes, report. Every id in a call is copied from a tool result or the
customer's words. The simulated model (simulated.py) words the texts and adds the mistakes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from examples.shop.reading import CLOSING, Card, State

# intent → the order statuses it acts on
FITS = {
    "status": ("shipped", "delivered", "pending", "processing"),
    "cancel": ("pending", "processing"),
    "return": ("delivered",),
    "exchange": ("delivered",),
    "damaged": ("delivered",),
    "order_address": ("pending", "processing"),
    "payment": ("pending", "processing"),
}


@dataclass(frozen=True)
class Call:
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Say:
    act: str  # what the text does: ask_identity, confirm, done, ...
    facts: dict[str, Any] = field(default_factory=dict)


Step = Call | Say


def fits(order: dict[str, Any], intent: str, products: tuple[str, ...]) -> bool:
    """Is `order` the one the customer describes: the products in it, in a status the intent acts on?"""
    names = {line["name"] for line in order["items"] if line["status"] == order["status"]}
    return order["status"] in FITS.get(intent, ()) and bool(products) and all(p in names for p in products)


def next_step(state: State, card: Card) -> Step:
    if state.last == "user" and state.users[-1].lower().startswith(CLOSING):
        return Say("goodbye")
    found = state.result("find_customer_by_email") or state.result("find_customer_by_name")
    if found is None:
        return _identify(state, card)
    customer = state.result("get_customer", customer_id=found["customer_id"])
    if customer is None:
        return Call("get_customer", {"customer_id": found["customer_id"]})
    facts = {"first": customer["name"]["first"]}
    if card.intent == "human":
        summary = (
            f"{customer['name']['first']} {customer['name']['last']} asks for a person: {state.users[0]}"
        )
        return write(
            state, "transfer_to_human", {"customer_id": customer["customer_id"], "summary": summary}, facts
        )
    if card.intent == "account_address":
        if card.address is None:
            return Say("ask_address", facts)
        arguments = {"customer_id": customer["customer_id"], **card.address}
        return write(state, "update_account_address", arguments, {**facts, "address": card.address})
    if card.intent not in FITS:
        return Say("unsupported", facts)
    order = _order(state, card, customer)
    if not isinstance(order, dict):
        return order
    return _for_order(state, card, customer, order, facts)


def _identify(state: State, card: Card) -> Step:
    tried = {d.name for d in state.calls if d.error}
    if card.email and "find_customer_by_email" not in tried:
        return Call("find_customer_by_email", {"email": card.email})
    if card.name and "find_customer_by_name" not in tried:
        first, last, zipcode = card.name
        return Call("find_customer_by_name", {"first_name": first, "last_name": last, "zip": zipcode})
    return Say("not_found" if tried else "ask_identity")


def _order(state: State, card: Card, customer: dict[str, Any]) -> Step | dict[str, Any]:
    """The order the customer means, or the next step towards it."""
    if card.order_id:
        if card.order_id not in customer["orders"]:
            return Say("not_yours", {"order_id": card.order_id})
        order = state.result("get_order", order_id=card.order_id)
        return order if order is not None else Call("get_order", {"order_id": card.order_id})
    if not card.products:
        return Say("ask_order", {"first": customer["name"]["first"]})
    for order_id in customer["orders"]:  # walked one at a time, in the record's order
        order = state.result("get_order", order_id=order_id)
        if order is None:
            return Call("get_order", {"order_id": order_id})
        if fits(order, card.intent, card.products):
            return dict(order)
    return Say("no_such_order", {"products": card.products})


def _for_order(
    state: State, card: Card, customer: dict[str, Any], order: dict[str, Any], facts: dict[str, Any]
) -> Step:
    order_id = order["order_id"]
    facts = {**facts, "order_id": order_id, "status": order["status"]}
    if order["status"] not in FITS[card.intent]:
        return Say(f"cannot_{card.intent}", facts)
    if card.intent == "status":
        return _status(state, order, facts)
    if card.intent == "cancel":
        if card.reason is None:
            return Say("ask_reason", facts)
        facts |= {"total": order["total"], "reason": card.reason}
        return write(state, "cancel_order", {"order_id": order_id, "reason": card.reason}, facts)
    if card.intent == "order_address":
        if card.address is None:
            return Say("ask_address", facts)
        facts["address"] = card.address
        return write(state, "change_delivery_address", {"order_id": order_id, **card.address}, facts)
    if card.intent == "payment":
        method = _method(customer, card.pay_with)
        if method is None:
            return Say("ask_payment", facts)
        facts["method"] = method
        return write(
            state, "change_order_payment", {"order_id": order_id, "payment_id": method["payment_id"]}, facts
        )
    lines = [line for p in card.products for line in order["items"] if line["name"] == p]
    facts |= {
        "items": [line["name"] for line in lines],
        "others": [x["name"] for x in order["items"] if x not in lines],
    }
    if card.intent == "exchange":
        return _exchange(state, card, order, lines[0], facts)
    return _refund(state, card, customer, order, lines, facts)


def _refund(
    state: State,
    card: Card,
    customer: dict[str, Any],
    order: dict[str, Any],
    lines: list[dict[str, Any]],
    facts: dict[str, Any],
) -> Step:
    """A return or a damaged item: ask where the refund goes, then its write."""
    if card.refund is None:
        return Say("ask_refund", facts)
    gift = _method(customer, "gift_card")
    refund_to = order["payment_id"] if card.refund == "original" else (gift or {}).get("payment_id")
    facts |= {"refund": sum(line["price"] for line in lines), "refund_kind": card.refund}
    if card.intent == "damaged":
        arguments = {"order_id": order["order_id"], "line_id": lines[0]["line_id"], "refund_to": refund_to}
        return write(state, "report_damaged_item", arguments, facts)
    line_ids = [line["line_id"] for line in lines]
    return write(
        state,
        "return_items",
        {"order_id": order["order_id"], "line_ids": line_ids, "refund_to": refund_to},
        facts,
    )


def _status(state: State, order: dict[str, Any], facts: dict[str, Any]) -> Step:
    fulfilment = order.get("fulfilment")
    if not fulfilment:
        return Say("preparing", {**facts, "placed_on": order["placed_on"]})
    parcel = state.result("track_parcel", tracking_number=fulfilment["tracking_number"])
    if parcel is None:
        return Call("track_parcel", {"tracking_number": fulfilment["tracking_number"]})
    return Say(
        "tracking", {**facts, "carrier": parcel["carrier"], "parcel": parcel["status"], "eta": parcel["eta"]}
    )


def _exchange(
    state: State, card: Card, order: dict[str, Any], line: dict[str, Any], facts: dict[str, Any]
) -> Step:
    product = state.result("get_product", product_id=line["product_id"])
    if product is None:
        return Call("get_product", {"product_id": line["product_id"]})
    variant = wanted_variant(product, line, card.text)
    if variant is None:
        return Say("no_variant", facts)
    facts["options"] = variant["options"]
    arguments = {
        "order_id": order["order_id"],
        "line_ids": [line["line_id"]],
        "new_variant_ids": [variant["variant_id"]],
        "payment_id": order["payment_id"],
    }
    return write(state, "exchange_items", arguments, facts)


def wanted_variant(product: dict[str, Any], line: dict[str, Any], text: str) -> dict[str, Any] | None:
    """The available variant whose options are the delivered line's with one the customer named."""
    for variant in product["variants"]:
        changed = {k: v for k, v in variant["options"].items() if line["options"].get(k) != v}
        if variant["available"] and len(changed) == 1 and mentions(text, next(iter(changed.values()))):
            return dict(variant)
    return None


def mentions(text: str, value: str) -> bool:
    import re

    flags = 0 if len(value) <= 2 else re.IGNORECASE  # "S", "M", "L" only as written
    return re.search(rf"(?<![\w'-]){re.escape(value)}(?![\w'-])", text, flags) is not None


def _method(customer: dict[str, Any], pay_with: str | None) -> dict[str, Any] | None:
    for method in customer["payment_methods"]:
        if pay_with in (method["kind"], method.get("brand")):
            return dict(method)
    return None


def write(state: State, name: str, arguments: dict[str, Any], facts: dict[str, Any]) -> Step:
    """Confirm, then write on a yes; report what came back, or that the customer said no."""
    done = state.result(name)
    if done is not None:
        return Say(f"done_{name}", {**facts, "result": done})
    failed = state.calls[-1] if state.calls and state.last == "tool" else None
    if failed is not None and failed.name == name and failed.error:
        return Say("failed", {**facts, "error": failed.error})
    if name == "transfer_to_human" or state.answered_yes():
        return Call(name, arguments)
    if state.answered_no():
        return Say("declined", facts)
    return Say(f"confirm_{name}", facts)
