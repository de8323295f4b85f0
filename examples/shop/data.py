"""The shop's world, generated from a seed: a catalog of products with variants, customers with
addresses and payment methods, and their orders with nested item lines.

Everything is invented and deterministic per seed: the same seed gives the same ids, names and
orders, so a conversation recorded once can be replayed and checked later.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta
from itertools import product as cartesian
from typing import Any

SEED = 11
CUSTOMERS = 80
TODAY = date(2026, 3, 18)

# product name → option name → values (the variant grid; a product stocks a share of it)
PRODUCTS: dict[str, dict[str, tuple[str, ...]]] = {
    "trail runners": {"color": ("black", "blue", "red", "grey"), "size": ("8", "9", "10", "11")},
    "hiking boots": {"color": ("brown", "black", "olive"), "size": ("8", "9", "10", "11")},
    "rain jacket": {"color": ("yellow", "navy", "green"), "size": ("S", "M", "L", "XL")},
    "fleece pullover": {"color": ("grey", "navy", "red"), "size": ("S", "M", "L")},
    "camping lantern": {"power": ("battery", "solar", "usb"), "color": ("orange", "black")},
    "water bottle": {"capacity": ("500ml", "750ml", "1L"), "color": ("teal", "white", "black")},
    "sleeping bag": {"rating": ("summer", "3-season", "winter"), "zip": ("left", "right")},
    "daypack": {"capacity": ("20L", "28L", "35L"), "color": ("black", "orange", "blue")},
    "dome tent": {"sleeps": ("1-person", "2-person", "4-person"), "color": ("green", "sand")},
    "headlamp": {"brightness": ("200lm", "400lm", "800lm"), "color": ("black", "red")},
    "wool socks": {"size": ("S", "M", "L"), "pack": ("3-pack", "6-pack")},
    "trekking poles": {"material": ("aluminium", "carbon"), "length": ("115cm", "125cm", "135cm")},
}
BASE_PRICE = {
    "trail runners": 119.0,
    "hiking boots": 165.0,
    "rain jacket": 139.0,
    "fleece pullover": 69.0,
    "camping lantern": 39.0,
    "water bottle": 24.0,
    "sleeping bag": 149.0,
    "daypack": 79.0,
    "dome tent": 229.0,
    "headlamp": 45.0,
    "wool socks": 22.0,
    "trekking poles": 89.0,
}
FIRST = (  # noqa: SIM905
    "Amara Bruno Chiara Dmitri Elif Farah Gustavo Hana Ines Jonas Keiko Lars Maya Nikhil Olga "
    "Pavel Quinn Rosa Sami Tomas Uma Viktor Wen Ximena Yusuf Zoe Aiden Beatriz Cyrus Delia"
).split()
LAST = (  # noqa: SIM905
    "Okafor Lindqvist Moreau Petrov Yilmaz Haddad Romero Sato Duarte Berg Tanaka Nilsen Cohen "
    "Rao Ivanova Novak Reyes Kim Osei Varga Mehta Kowalski Zhang Ortega Demir Fischer Walsh"
).split()
DOMAINS = ("mailbox.example", "post.example", "inbox.example", "webmail.example")
STREETS = "Alder Birch Cedar Juniper Maple Orchard Quarry Ridge Spruce Willow Harbor Mill".split()  # noqa: SIM905
KINDS = ("Street", "Road", "Avenue", "Lane", "Drive", "Court")
CITIES = (
    ("Portland", "OR"),
    ("Boise", "ID"),
    ("Tacoma", "WA"),
    ("Eugene", "OR"),
    ("Spokane", "WA"),
    ("Reno", "NV"),
    ("Bend", "OR"),
    ("Missoula", "MT"),
    ("Salem", "OR"),
    ("Helena", "MT"),
)
CARDS = ("Visa", "Mastercard", "Amex")
# order status → how many of a customer's orders have it (weights)
STATUSES = {"pending": 3, "processing": 2, "shipped": 2, "delivered": 4, "cancelled": 1}
CARRIERS = ("UPS", "FedEx", "USPS")


@dataclass(frozen=True)
class World:
    products: dict[str, dict[str, Any]]  # product_id → record
    customers: dict[str, dict[str, Any]]  # customer_id → record
    orders: dict[str, dict[str, Any]]  # order_id → record


def _id(rng: random.Random, prefix: str, digits: int, taken: set[str]) -> str:
    while True:
        made = prefix + "".join(rng.choice("0123456789") for _ in range(digits))
        if made not in taken:
            taken.add(made)
            return made


def address(rng: random.Random) -> dict[str, str]:
    city, state = rng.choice(CITIES)
    line1 = f"{rng.randint(2, 990)} {rng.choice(STREETS)} {rng.choice(KINDS)}"
    line2 = rng.choice(["", "", "", f"Apt {rng.randint(1, 40)}", f"Unit {rng.randint(1, 9)}"])
    zipcode = f"{rng.randint(83000, 99400):05d}"
    return {"line1": line1, "line2": line2, "city": city, "state": state, "zip": zipcode}


def catalog(rng: random.Random, taken: set[str]) -> dict[str, dict[str, Any]]:
    products: dict[str, dict[str, Any]] = {}
    for name, grid in PRODUCTS.items():
        product_id = _id(rng, "prd_", 5, taken)
        variants = []
        for combo in cartesian(*grid.values()):
            if rng.random() < 0.15:
                continue  # not stocked in that combination at all
            options = dict(zip(grid, combo, strict=True))
            price = round(BASE_PRICE[name] * rng.choice((0.95, 1.0, 1.0, 1.1)), 2)
            available = rng.random() < 0.8
            variants.append(
                {
                    "variant_id": _id(rng, "var_", 7, taken),
                    "options": options,
                    "price": price,
                    "available": available,
                }
            )
        products[product_id] = {"product_id": product_id, "name": name, "variants": variants}
    return products


def payment_methods(rng: random.Random, email: str, taken: set[str]) -> list[dict[str, Any]]:
    card = rng.choice(CARDS)
    methods: list[dict[str, Any]] = [
        {
            "payment_id": _id(rng, "pm_card_", 6, taken),
            "kind": "card",
            "brand": card,
            "last4": f"{rng.randint(0, 9999):04d}",
        }
    ]
    if rng.random() < 0.55:
        balance = float(rng.choice((25, 50, 75, 100, 150)))
        methods.append(
            {"payment_id": _id(rng, "pm_gift_", 6, taken), "kind": "gift_card", "balance": balance}
        )
    if rng.random() < 0.4:
        methods.append({"payment_id": _id(rng, "pm_paypal_", 6, taken), "kind": "paypal", "account": email})
    rng.shuffle(methods)
    return methods


def order(
    rng: random.Random, customer: dict[str, Any], products: list[dict[str, Any]], taken: set[str]
) -> dict[str, Any]:
    status = rng.choices(list(STATUSES), weights=list(STATUSES.values()))[0]
    lines = []
    for stocked in rng.sample(products, rng.choice((1, 1, 2, 2, 3, 4))):
        variant = rng.choice(stocked["variants"])
        lines.append(
            {
                "line_id": _id(rng, "ln_", 6, taken),
                "product_id": stocked["product_id"],
                "variant_id": variant["variant_id"],
                "name": stocked["name"],
                "options": dict(variant["options"]),
                "price": variant["price"],
                "status": status,
            }
        )
    ago = {"pending": (0, 1), "processing": (1, 2), "shipped": (2, 4)}.get(status, (8, 25))
    placed = TODAY - timedelta(days=rng.randint(*ago))
    record: dict[str, Any] = {
        "order_id": _id(rng, "LK", 6, taken),
        "customer_id": customer["customer_id"],
        "status": status,
        "placed_on": placed.isoformat(),
        "items": lines,
        "ship_to": dict(customer["address"]),
        "payment_id": rng.choice(customer["payment_methods"])["payment_id"],
        "total": round(sum(line["price"] for line in lines), 2),
        "fulfilment": None,
        "refunds": [],
    }
    if status in ("shipped", "delivered"):
        eta = placed + timedelta(days=rng.randint(3, 6))
        record["fulfilment"] = {
            "tracking_number": _id(rng, "1Z", 10, taken),
            "carrier": rng.choice(CARRIERS),
            "shipped_on": (placed + timedelta(days=1)).isoformat(),
            ("delivered_on" if status == "delivered" else "eta"): eta.isoformat(),
        }
    return record


def customer(
    rng: random.Random, products: list[dict[str, Any]], taken: set[str]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    first, last = rng.choice(FIRST), rng.choice(LAST)
    email = f"{first.lower()}.{last.lower()}{rng.randint(1, 99)}@{rng.choice(DOMAINS)}"
    record: dict[str, Any] = {
        "customer_id": _id(rng, "cus_", 6, taken),
        "name": {"first": first, "last": last},
        "email": email,
        "address": address(rng),
        "member_since": f"{rng.randint(2016, 2025)}",
    }
    record["payment_methods"] = payment_methods(rng, email, taken)
    orders = [order(rng, record, products, taken) for _ in range(rng.randint(2, 5))]
    record["orders"] = [o["order_id"] for o in orders]
    return record, orders


def world(seed: int = SEED, customers: int = CUSTOMERS) -> World:
    """The shop's catalog, customers and orders for `seed`; names unique per customer."""
    rng = random.Random(seed)
    taken: set[str] = set()
    products = catalog(rng, taken)
    people: dict[str, dict[str, Any]] = {}
    orders: dict[str, dict[str, Any]] = {}
    names: set[tuple[str, str]] = set()
    while len(people) < customers:
        record, placed = customer(rng, list(products.values()), taken)
        key = (record["name"]["first"], record["name"]["last"])
        if key in names:
            continue  # a name and zip must find one customer
        names.add(key)
        people[record["customer_id"]] = record
        orders.update((o["order_id"], o) for o in placed)
    return World(products, people, orders)
