"""The task set: several requests per generated customer, each with the changes it should make.

A scenario is one customer's request (cancel, return, exchange, damaged item, order or account
address, payment, status, a person): how they open the chat, how they prove who they are (up
front, or when asked), what they answer when the agent asks, whether they say yes, and the writes
a correct agent makes — computed here from the shop's records, never from the model's answers.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from examples.shop import data
from examples.shop.backend import fresh_backend
from examples.shop.plan import FITS, fits, mentions
from examples.shop.scenario_text import (
    OPENINGS,
    REWORDED,
    identity_text,
    new_words,
    opening_values,
    reason_text,
    refund_text,
)

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


def scenarios(
    seed: int = data.SEED,
    customers: int = data.CUSTOMERS,
    per_customer: int = PER_CUSTOMER,
    reworded: bool = False,
) -> list[Scenario]:
    """`per_customer` requests of each generated customer, in the customers' order; `reworded`:
    each opening in words of its own (`REWORDED`), everything else as drawn without it."""
    world = fresh_backend(seed, customers).world
    out: list[Scenario] = []
    for index, customer in enumerate(world.customers.values()):
        rng = random.Random(f"{seed}:{customer['customer_id']}")
        orders = [world.orders[o] for o in customer["orders"]]
        options = [i for i in INTENTS if _eligible(i, customer, orders, world)]
        for intent in rng.sample(options, min(per_customer, len(options))):
            made = _scenario(intent, customer, orders, world, rng, f"c{index:03d}-{intent}", reworded)
            if made is not None:
                out.append(made)
    return out


INTENTS = (
    "status",
    "cancel",
    "cancel_refused",
    "return",
    "exchange",
    "damaged",
    "order_address",
    "account_address",
    "payment",
    "human",
)


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


@dataclass
class _Draft:
    """A request being written: the opening's values, the answers to questions, the writes."""

    values: dict[str, Any]
    asks: dict[str, str] = field(default_factory=dict)
    products: tuple[str, ...] = ()
    writes: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    style: str = "any"  # the openings' kind: by order "id", by "product", or "any"


def _scenario(
    intent: str,
    customer: dict[str, Any],
    orders: list[dict[str, Any]],
    world: data.World,
    rng: random.Random,
    sid: str,
    reworded: bool = False,
) -> Scenario | None:
    """One request of `intent`, or None when the draw found nothing to ask about."""
    upfront = rng.random() < 0.4
    by_email = rng.random() < 0.5
    draft = _Draft(opening_values(customer, rng))
    if intent in FIT_STATUS and not _order_request(draft, intent, customer, orders, world, rng):
        return None
    if intent == "account_address":
        draft.values["address_text"], address = _new_address(rng)
        draft.writes = [("update_account_address", {"customer_id": customer["customer_id"], **address})]
    if intent == "human":
        draft.writes = [("transfer_to_human", {"customer_id": customer["customer_id"]})]
    if intent == "exchange" and not _unique_value(draft.values["new"], draft.products):
        return None
    phrasing = rng.choice(OPENINGS[intent][draft.style])
    if reworded:  # its own dice, so that every other draw of the scenario stays as it was
        phrasing = random.Random(f"{sid}:reworded").choice(REWORDED[intent][draft.style])
    opening = " ".join(phrasing.format(**draft.values).split())
    identity = identity_text(customer, by_email, rng, upfront=False)
    if upfront:
        opening = f"{opening} {identity_text(customer, by_email, rng, upfront=True)}"
    decline = intent not in ("status", "cancel_refused", "human") and rng.random() < DECLINE
    writes = () if decline else tuple(draft.writes)
    return Scenario(
        sid,
        customer["customer_id"],
        intent,
        opening,
        identity,
        upfront,
        draft.products,
        draft.asks,
        decline,
        writes,
    )


def _order_request(
    draft: _Draft,
    intent: str,
    customer: dict[str, Any],
    orders: list[dict[str, Any]],
    world: data.World,
    rng: random.Random,
) -> bool:
    """Draw the order and its items a request is about, and its writes; False when none fits."""
    pool = [o for o in orders if o["status"] in FIT_STATUS[intent]]
    if intent == "exchange":
        pool = [o for o in pool if _swaps(o, world)]
    if intent == "payment":
        pool = [o for o in pool if _other_methods(customer, o)]
    order = rng.choice(pool)
    chosen = _items(draft, intent, order, world, rng)
    draft.products = tuple(x["name"] for x in chosen)
    by_id = rng.random() < 0.35 or intent == "cancel_refused"
    if not by_id and _target(intent, orders, draft.products)["order_id"] != order["order_id"]:
        by_id = True  # an earlier order fits the description too: the customer gives the id
    products = " and the ".join(draft.products)
    draft.values |= {"order_id": order["order_id"], "products": products, "product": draft.products[0]}
    made = _writes(intent, customer, order, chosen, draft, rng)
    if made is None:
        return False
    draft.writes, draft.style = made, "id" if by_id else "product"
    return True


def _items(
    draft: _Draft, intent: str, order: dict[str, Any], world: data.World, rng: random.Random
) -> list[dict[str, Any]]:
    """The order's lines the request is about; for an exchange, also the variant wanted."""
    lines = [x for x in order["items"] if x["status"] == order["status"]]
    take = 2 if intent == "return" and len(lines) > 1 and rng.random() < 0.3 else 1
    chosen = rng.sample(lines, take)
    if intent == "exchange":
        line, variant, new = rng.choice(_swaps(order, world))
        option = next(k for k, v in variant["options"].items() if line["options"][k] != v)
        chosen, draft.values["new"], draft.values["variant_id"] = [line], new, variant["variant_id"]
        draft.values["new_words"] = new_words(option, new)
    return chosen


# intent → the statuses of the orders a request is drawn from: those the intent acts on, but a
# status request is about a parcel, and a refused cancellation about an order already sent
SENT = ("shipped", "delivered")
FIT_STATUS = {**FITS, "status": SENT, "cancel_refused": SENT}


def _writes(
    intent: str,
    customer: dict[str, Any],
    order: dict[str, Any],
    lines: list[dict[str, Any]],
    draft: _Draft,
    rng: random.Random,
) -> list[tuple[str, dict[str, Any]]] | None:
    """The expected writes of an order request; fills the opening's values and the answers."""
    order_id, values = order["order_id"], draft.values
    if intent in ("status", "cancel_refused"):
        return []
    if intent == "cancel":
        reason = rng.choice(("no_longer_needed", "ordered_by_mistake"))
        values["reason_text"] = reason_text(reason, rng) if rng.random() < 0.5 else ""
        if not values["reason_text"]:
            draft.asks["reason"] = reason_text(reason, rng)
        return [("cancel_order", {"order_id": order_id, "reason": reason})]
    if intent == "order_address":
        values["address_text"], address = _new_address(rng)
        return [("change_delivery_address", {"order_id": order_id, **address})]
    if intent == "payment":
        return _payment(customer, order, values, rng)
    if intent == "exchange":
        arguments = {
            "order_id": order_id,
            "line_ids": [lines[0]["line_id"]],
            "new_variant_ids": [values["variant_id"]],
            "payment_id": order["payment_id"],
        }
        return [("exchange_items", arguments)]
    return _refund(intent, customer, order, lines, draft, rng)


def _payment(
    customer: dict[str, Any], order: dict[str, Any], values: dict[str, Any], rng: random.Random
) -> list[tuple[str, dict[str, Any]]] | None:
    method = rng.choice(_other_methods(customer, order))
    values["method"] = {"gift_card": "gift card", "paypal": "PayPal"}.get(
        method["kind"], f"{method.get('brand')} card"
    )
    if method["kind"] == "card" and any(
        m.get("brand") == method["brand"] and m is not method for m in customer["payment_methods"]
    ):
        return None  # "my Visa card" would not say which
    return [("change_order_payment", {"order_id": order["order_id"], "payment_id": method["payment_id"]})]


def _refund(
    intent: str,
    customer: dict[str, Any],
    order: dict[str, Any],
    lines: list[dict[str, Any]],
    draft: _Draft,
    rng: random.Random,
) -> list[tuple[str, dict[str, Any]]]:
    """A return or a damaged item: the refund goes to the order's own method or a gift card."""
    gift = next((m for m in customer["payment_methods"] if m["kind"] == "gift_card"), None)
    kind = "gift_card" if gift is not None and rng.random() < 0.4 else "original"
    refund_to = gift["payment_id"] if kind == "gift_card" and gift else order["payment_id"]
    draft.values["refund_text"] = refund_text(kind, rng, upfront=True) if rng.random() < 0.4 else ""
    if not draft.values["refund_text"]:
        draft.asks["refund"] = refund_text(kind, rng, upfront=False)
    if intent == "damaged":
        return [
            (
                "report_damaged_item",
                {"order_id": order["order_id"], "line_id": lines[0]["line_id"], "refund_to": refund_to},
            )
        ]
    return [
        (
            "return_items",
            {
                "order_id": order["order_id"],
                "line_ids": [x["line_id"] for x in lines],
                "refund_to": refund_to,
            },
        )
    ]


def _new_address(rng: random.Random) -> tuple[str, dict[str, str]]:
    address = data.address(rng)
    text = ", ".join(x for x in (address["line1"], address["line2"], address["city"]) if x)
    text += f", {address['state']} {address['zip']}"
    return text, {k: v for k, v in address.items() if v}


def _unique_value(value: str, products: tuple[str, ...]) -> bool:
    """The new option's value is not also a word of the product's name (the model reads it there)."""
    return not any(mentions(p, value) for p in products)
