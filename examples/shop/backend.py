"""The shop's back office: the records the tools read and change, with the rules a real one keeps.

Every tool returns a JSON-able record; a bad id, or a change the record's state does not allow
(cancelling a delivered order, returning an item twice), raises `ToolError`, which the agent hands
to the model as the tool's result ("error: ..."), as a real API answers 4xx.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from examples.shop import data

CANCEL_REASONS = ("no_longer_needed", "ordered_by_mistake")
WRITES = (
    "cancel_order",
    "change_delivery_address",
    "change_order_payment",
    "return_items",
    "exchange_items",
    "report_damaged_item",
    "update_account_address",
    "transfer_to_human",
)


class ToolError(Exception):
    """A call the back office refuses; its message is what the model reads."""


@dataclass
class Backend:
    """One conversation's copy of the shop; `state()` is what a task is checked on."""

    world: data.World
    transfers: list[dict[str, Any]]

    def state(self) -> dict[str, Any]:
        return {"customers": self.world.customers, "orders": self.world.orders, "transfers": self.transfers}

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        from examples.shop.operations import OPERATIONS

        operation: Callable[..., dict[str, Any]] | None = OPERATIONS.get(name)
        if operation is None:
            raise ToolError(f"unknown tool {name!r}")
        try:
            return operation(self, **arguments)
        except TypeError as exc:  # a missing or unknown argument
            raise ToolError(str(exc).split(") ", 1)[-1].replace("()", "")) from None

    def customer(self, customer_id: Any) -> dict[str, Any]:
        found = self.world.customers.get(str(customer_id).strip())
        if found is None:
            raise ToolError(f"no customer with id {customer_id!r}")
        return found

    def order(self, order_id: Any) -> dict[str, Any]:
        text = str(order_id).strip().lstrip("#").upper()
        found = self.world.orders.get(text)
        if found is None:
            raise ToolError(f"no order with id {order_id!r}")
        return found

    def product(self, product_id: Any) -> dict[str, Any]:
        found = self.world.products.get(str(product_id).strip())
        if found is None:
            raise ToolError(f"no product with id {product_id!r}")
        return found

    def payment(self, customer: dict[str, Any], payment_id: Any) -> dict[str, Any]:
        for method in customer["payment_methods"]:
            if method["payment_id"] == str(payment_id).strip():
                return dict(method)
        raise ToolError(f"payment method {payment_id!r} is not one of the customer's")

    def lines(self, order: dict[str, Any], line_ids: Any) -> list[dict[str, Any]]:
        if not isinstance(line_ids, list) or not line_ids:
            raise ToolError("line_ids must be a non-empty list of the order's line ids")
        by_id = {line["line_id"]: line for line in order["items"]}
        wanted = [by_id.get(str(i).strip()) for i in line_ids]
        missing = [i for i, line in zip(line_ids, wanted, strict=True) if line is None]
        if missing:
            raise ToolError(f"order {order['order_id']} has no line {missing[0]!r}")
        if len({id(line) for line in wanted}) != len(wanted):
            raise ToolError("a line is listed twice")
        return [line for line in wanted if line is not None]

    def variant(self, variant_id: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        for product in self.world.products.values():
            for variant in product["variants"]:
                if variant["variant_id"] == str(variant_id).strip():
                    return product, variant
        raise ToolError(f"no variant with id {variant_id!r}")


@functools.lru_cache(maxsize=4)
def _world(seed: int, customers: int) -> data.World:
    return data.world(seed, customers)


def fresh_backend(seed: int = data.SEED, customers: int = data.CUSTOMERS) -> Backend:
    """A copy of the shop as generated, for one conversation."""
    return Backend(copy.deepcopy(_world(seed, customers)), [])


def one_of(value: Any, allowed: tuple[str, ...], what: str) -> str:
    text = str(value).strip().lower()
    if text not in allowed:
        raise ToolError(f"{what} must be one of {', '.join(allowed)}, not {value!r}")
    return text


def address_of(line1: Any, city: Any, state: Any, zip: Any, line2: Any = "") -> dict[str, str]:
    """A postal address from the tools' fields; the zip is five digits."""
    fields = {"line1": line1, "line2": line2 or "", "city": city, "state": state, "zip": zip}
    out = {k: str(v).strip() for k, v in fields.items()}
    if not all(out[k] for k in ("line1", "city", "state", "zip")):
        raise ToolError("an address needs line1, city, state and zip")
    if not (len(out["zip"]) == 5 and out["zip"].isdigit()):
        raise ToolError(f"zip must be five digits, not {zip!r}")
    if len(out["state"]) != 2:
        raise ToolError(f"state must be a two-letter code, not {state!r}")
    return {**out, "state": out["state"].upper()}
