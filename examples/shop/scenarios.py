"""The task set: several requests per generated customer, each with the changes it should make.

A scenario is one customer's request (cancel, return, exchange, damaged item, order or account
address, payment, status, a person): how they open the chat, how they prove who they are (up
front, or when asked), what they answer when the agent asks, whether they say yes, and the writes
a correct agent makes — computed here from the shop's records, never from the model's answers.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from examples.shop import data
from examples.shop.backend import fresh_backend
from examples.shop.plan import fits, mentions
from examples.shop.scenario_text import OPENINGS, identity_text, new_words, opening_values

PER_CUSTOMER = 3
DECLINE = 0.12  # share of write requests the customer declines at the confirmation


@dataclass(frozen=True)
class Scenario:
    id: str
    customer_id: str
    intent: str
    opening: str
    identity: str  # what the customer says when asked who they are
    identity_upfront: bool
    products: tuple[str, ...]  # the items concerned, by product name
    answers: dict[str, str]  # what they answer when asked: "reason", "refund"
    decline: bool
    writes: tuple[tuple[str, dict[str, Any]], ...]  # the expected changes, in order

    @property
    def kind(self) -> str:
        return self.intent

    @property
    def tags(self) -> tuple[str, ...]:
        return (self.intent,)


def scenarios(seed: int = data.SEED, customers: int = data.CUSTOMERS, per_customer: int = PER_CUSTOMER) -> list[Scenario]:  # fmt: skip
    """`per_customer` requests of each generated customer, in the customers' order."""
    world = fresh_backend(seed, customers).world
    out: list[Scenario] = []
    for index, customer in enumerate(world.customers.values()):
        rng = random.Random(f"{seed}:{customer['customer_id']}")
        orders = [world.orders[o] for o in customer["orders"]]
        options = [i for i in INTENTS if _eligible(i, customer, orders, world)]
        for intent in rng.sample(options, min(per_customer, len(options))):
            made = _scenario(intent, customer, orders, world, rng, f"c{index:03d}-{intent}")
            if made is not None:
                out.append(made)
    return out


INTENTS = ("status", "cancel", "cancel_refused", "return", "exchange", "damaged", "order_address",
           "account_address", "payment", "human")  # fmt: skip


def _eligible(intent: str, customer: dict[str, Any], orders: list[dict[str, Any]], world: data.World) -> bool:
    statuses = {o["status"] for o in orders}
    return {
        "status": bool(statuses & {"shipped", "delivered"}),
        "cancel": bool(statuses & {"pending", "processing"}),
        "cancel_refused": bool(statuses & {"shipped", "delivered"}),
        "return": "delivered" in statuses,
        "exchange": any(_swaps(o, world) for o in orders if o["status"] == "delivered"),
        "damaged": "delivered" in statuses,
        "order_address": bool(statuses & {"pending", "processing"}),
        "payment": any(
            _other_methods(customer, o) for o in orders if o["status"] in ("pending", "processing")
        ),
        "account_address": True,
        "human": True,
    }[intent]


def _swaps(order: dict[str, Any], world: data.World) -> list[tuple[dict[str, Any], dict[str, Any], str]]:
    """(line, variant, new value) for each one-option change of a line that is in stock."""
    found = []
    for line in order["items"]:
        for variant in world.products[line["product_id"]]["variants"]:
            changed = [v for k, v in variant["options"].items() if line["options"][k] != v]
            if variant["available"] and len(changed) == 1:
                found.append((line, variant, changed[0]))
    return found


def _other_methods(customer: dict[str, Any], order: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        m
        for m in customer["payment_methods"]
        if m["payment_id"] != order["payment_id"]
        and (m["kind"] != "gift_card" or m["balance"] >= order["total"])
    ]


def _target(intent: str, orders: list[dict[str, Any]], products: tuple[str, ...]) -> dict[str, Any]:
    """The order a good agent lands on when it walks the record for these products."""
    return next(o for o in orders if fits(o, intent, products))


def _scenario(intent: str, customer: dict[str, Any], orders: list[dict[str, Any]], world: data.World, rng: random.Random, sid: str) -> Scenario | None:  # fmt: skip
    """One request of `intent`, or None when the draw found nothing to ask about."""
    upfront = rng.random() < 0.4
    by_email = rng.random() < 0.5
    asks: dict[str, str] = {}
    products: tuple[str, ...] = ()
    writes: list[tuple[str, dict[str, Any]]] = []
    values = opening_values(customer, rng)
    write_intent = intent not in ("status", "cancel_refused", "human")
    if intent in FIT_STATUS:
        pool = [o for o in orders if o["status"] in FIT_STATUS[intent]]
        if intent == "exchange":
            pool = [o for o in pool if _swaps(o, world)]
        if intent == "payment":
            pool = [o for o in pool if _other_methods(customer, o)]
        order = rng.choice(pool)
        lines = [x for x in order["items"] if x["status"] == order["status"]]
        take = 2 if intent == "return" and len(lines) > 1 and rng.random() < 0.3 else 1
        chosen = rng.sample(lines, take)
        if intent == "exchange":
            line, variant, new = rng.choice(_swaps(order, world))
            option = next(k for k, v in variant["options"].items() if line["options"][k] != v)
            chosen, values["new"], values["variant_id"] = [line], new, variant["variant_id"]
            values["new_words"] = new_words(option, new)
        products = tuple(x["name"] for x in chosen)
        by_id = rng.random() < 0.35 or intent == "cancel_refused"
        if not by_id and _target(intent, orders, products)["order_id"] != order["order_id"]:
            by_id = True  # an earlier order fits the description too: the customer gives the id
        values |= {
            "order_id": order["order_id"],
            "products": " and the ".join(products),
            "product": products[0],
        }
        writes = _writes(intent, customer, order, chosen, values, rng, asks, world)
        if writes is None:
            return None
        style = "id" if by_id else "product"
    else:
        style = "any"
        if intent in ("account_address",):
            values["address_text"], address = _new_address(rng)
            writes = [("update_account_address", {"customer_id": customer["customer_id"], **address})]
        if intent == "human":
            writes = [("transfer_to_human", {"customer_id": customer["customer_id"]})]
    if intent == "exchange" and not _unique_value(values["new"], products, values):
        return None
    templates = OPENINGS[intent][style]
    opening = " ".join(rng.choice(templates).format(**values).split())
    identity = identity_text(customer, by_email, rng, upfront=False)
    if upfront:
        opening = f"{opening} {identity_text(customer, by_email, rng, upfront=True)}"
    decline = write_intent and rng.random() < DECLINE
    return Scenario(sid, customer["customer_id"], intent, opening, identity, upfront, products, asks, decline,
                    () if decline else tuple(writes))  # fmt: skip


FIT_STATUS = {
    "status": ("shipped", "delivered"),
    "cancel": ("pending", "processing"),
    "cancel_refused": ("shipped", "delivered"),
    "return": ("delivered",),
    "exchange": ("delivered",),
    "damaged": ("delivered",),
    "order_address": ("pending", "processing"),
    "payment": ("pending", "processing"),
}


def _writes(intent: str, customer: dict[str, Any], order: dict[str, Any], lines: list[dict[str, Any]], values: dict[str, Any], rng: random.Random, asks: dict[str, str], world: data.World) -> list[tuple[str, dict[str, Any]]] | None:  # fmt: skip
    """The expected writes of an order request; fills the opening's values and the answers."""
    from examples.shop.scenario_text import reason_text, refund_text

    order_id = order["order_id"]
    if intent in ("status", "cancel_refused"):
        return []
    if intent == "cancel":
        reason = rng.choice(("no_longer_needed", "ordered_by_mistake"))
        values["reason_text"] = reason_text(reason, rng) if rng.random() < 0.5 else ""
        if not values["reason_text"]:
            asks["reason"] = reason_text(reason, rng)
        return [("cancel_order", {"order_id": order_id, "reason": reason})]
    if intent == "order_address":
        values["address_text"], address = _new_address(rng)
        return [("change_delivery_address", {"order_id": order_id, **address})]
    if intent == "payment":
        method = rng.choice(_other_methods(customer, order))
        values["method"] = {"gift_card": "gift card", "paypal": "PayPal"}.get(
            method["kind"], f"{method.get('brand')} card"
        )
        if method["kind"] == "card" and any(m.get("brand") == method["brand"] and m is not method for m in customer["payment_methods"]):  # fmt: skip
            return None
        return [("change_order_payment", {"order_id": order_id, "payment_id": method["payment_id"]})]
    if intent == "exchange":
        arguments = {"order_id": order_id, "line_ids": [lines[0]["line_id"]], "new_variant_ids": [values["variant_id"]], "payment_id": order["payment_id"]}  # fmt: skip
        return [("exchange_items", arguments)]
    gift = next((m for m in customer["payment_methods"] if m["kind"] == "gift_card"), None)
    kind = "gift_card" if gift is not None and rng.random() < 0.4 else "original"
    refund_to = gift["payment_id"] if kind == "gift_card" and gift else order["payment_id"]
    values["refund_text"] = refund_text(kind, rng, upfront=True) if rng.random() < 0.4 else ""
    if not values["refund_text"]:
        asks["refund"] = refund_text(kind, rng, upfront=False)
    if intent == "damaged":
        return [("report_damaged_item", {"order_id": order_id, "line_id": lines[0]["line_id"], "refund_to": refund_to})]  # fmt: skip
    return [("return_items", {"order_id": order_id, "line_ids": [x["line_id"] for x in lines], "refund_to": refund_to})]  # fmt: skip


def _new_address(rng: random.Random) -> tuple[str, dict[str, str]]:
    address = data.address(rng)
    text = ", ".join(x for x in (address["line1"], address["line2"], address["city"]) if x)
    text += f", {address['state']} {address['zip']}"
    return text, {k: v for k, v in address.items() if v}


def _unique_value(value: str, products: tuple[str, ...], values: dict[str, Any]) -> bool:
    """The new option's value is not also a word of the product's name (the model reads it there)."""
    return not any(mentions(p, value) for p in products)
