"""The shop's operations, one function a tool: what each reads from, or does to, the back office."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from examples.shop.backend import CANCEL_REASONS, Backend, ToolError, address_of, one_of

# look-ups


def find_customer_by_email(b: Backend, email: str) -> dict[str, Any]:
    text = str(email).strip().lower()
    for record in b.world.customers.values():
        if record["email"] == text:
            return {"customer_id": record["customer_id"]}
    raise ToolError(f"no customer with email {email!r}")


def find_customer_by_name(b: Backend, first_name: str, last_name: str, zip: str) -> dict[str, Any]:
    wanted = (str(first_name).strip().lower(), str(last_name).strip().lower(), str(zip).strip())
    for record in b.world.customers.values():
        name = record["name"]
        if (name["first"].lower(), name["last"].lower(), record["address"]["zip"]) == wanted:
            return {"customer_id": record["customer_id"]}
    raise ToolError("no customer with that name and zip")


def get_customer(b: Backend, customer_id: str) -> dict[str, Any]:
    return dict(b.customer(customer_id))


def get_order(b: Backend, order_id: str) -> dict[str, Any]:
    return dict(b.order(order_id))


def get_product(b: Backend, product_id: str) -> dict[str, Any]:
    return dict(b.product(product_id))


def track_parcel(b: Backend, tracking_number: str) -> dict[str, Any]:
    for record in b.world.orders.values():
        fulfilment = record["fulfilment"] or {}
        if fulfilment.get("tracking_number") == str(tracking_number).strip():
            delivered = fulfilment.get("delivered_on")
            events = [{"on": fulfilment["shipped_on"], "event": "picked up", "at": "Reno, NV"}]
            if delivered:
                events.append({"on": delivered, "event": "delivered", "at": record["ship_to"]["city"]})
            else:
                events.append({"on": fulfilment["shipped_on"], "event": "in transit", "at": "Sacramento, CA"})
            return {
                "tracking_number": fulfilment["tracking_number"],
                "carrier": fulfilment["carrier"],
                "status": "delivered" if delivered else "in transit",
                "eta": fulfilment.get("eta") or delivered,
                "events": events,
            }
    raise ToolError(f"no parcel with tracking number {tracking_number!r}")


# changes to pending orders


def _pending(b: Backend, order_id: str) -> dict[str, Any]:
    record = b.order(order_id)
    if record["status"] not in ("pending", "processing"):
        raise ToolError(
            f"order {record['order_id']} is {record['status']}: only pending or processing orders change"
        )
    return record


def cancel_order(b: Backend, order_id: str, reason: str) -> dict[str, Any]:
    record = _pending(b, order_id)
    why = one_of(reason, CANCEL_REASONS, "reason")
    record["status"] = "cancelled"
    record["refunds"].append({"amount": record["total"], "to": record["payment_id"], "reason": why})
    for line in record["items"]:
        line["status"] = "cancelled"
    return {"order_id": record["order_id"], "status": "cancelled", "refund": record["refunds"][-1]}


def change_delivery_address(
    b: Backend, order_id: str, line1: str, city: str, state: str, zip: str, line2: str = ""
) -> dict[str, Any]:
    record = _pending(b, order_id)
    record["ship_to"] = address_of(line1, city, state, zip, line2)
    return {"order_id": record["order_id"], "ship_to": record["ship_to"]}


def change_order_payment(b: Backend, order_id: str, payment_id: str) -> dict[str, Any]:
    record = _pending(b, order_id)
    method = b.payment(b.customer(record["customer_id"]), payment_id)
    if method["payment_id"] == record["payment_id"]:
        raise ToolError("the order is already paid with that method")
    if method["kind"] == "gift_card" and method["balance"] < record["total"]:
        raise ToolError(
            f"the gift card's balance {method['balance']} is below the order total {record['total']}"
        )
    record["payment_id"] = method["payment_id"]
    return {"order_id": record["order_id"], "payment_id": method["payment_id"]}


# delivered orders


def _delivered(b: Backend, order_id: str, line_ids: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    record = b.order(order_id)
    if record["status"] != "delivered":
        raise ToolError(f"order {record['order_id']} is {record['status']}: only delivered orders")
    lines = b.lines(record, line_ids)
    done = [line["line_id"] for line in lines if line["status"] != "delivered"]
    if done:
        raise ToolError(f"line {done[0]} is already {lines[0]['status']}")
    return record, lines


def _refund_target(b: Backend, record: dict[str, Any], refund_to: str) -> str:
    method = b.payment(b.customer(record["customer_id"]), refund_to)
    if method["payment_id"] != record["payment_id"] and method["kind"] != "gift_card":
        raise ToolError("a refund goes to the order's own payment method or to a gift card")
    return str(method["payment_id"])


def return_items(b: Backend, order_id: str, line_ids: list[str], refund_to: str) -> dict[str, Any]:
    record, lines = _delivered(b, order_id, line_ids)
    target = _refund_target(b, record, refund_to)
    amount = round(sum(line["price"] for line in lines), 2)
    for line in lines:
        line["status"] = "return_requested"
    record["refunds"].append({"amount": amount, "to": target, "reason": "return"})
    return {
        "order_id": record["order_id"],
        "returned": [line["line_id"] for line in lines],
        "refund": amount,
        "refund_to": target,
        "label": f"RMA-{record['order_id'][2:]}",
    }


def exchange_items(
    b: Backend, order_id: str, line_ids: list[str], new_variant_ids: list[str], payment_id: str
) -> dict[str, Any]:
    record, lines = _delivered(b, order_id, line_ids)
    if not isinstance(new_variant_ids, list) or len(new_variant_ids) != len(lines):
        raise ToolError("new_variant_ids must list one variant for each line, in the same order")
    b.payment(b.customer(record["customer_id"]), payment_id)
    for line, variant_id in zip(lines, new_variant_ids, strict=True):
        product, variant = b.variant(variant_id)
        if product["product_id"] != line["product_id"]:
            raise ToolError(f"{variant_id} is a {product['name']}, not a {line['name']}")
        if not variant["available"] or variant["variant_id"] == line["variant_id"]:
            raise ToolError(f"variant {variant_id} is out of stock or the same as the one delivered")
    for line, variant_id in zip(lines, new_variant_ids, strict=True):
        line["status"] = "exchange_requested"
        line["exchange_for"] = variant_id
    return {
        "order_id": record["order_id"],
        "exchanged": [line["line_id"] for line in lines],
        "new_variant_ids": new_variant_ids,
        "difference_charged_to": payment_id,
    }


def report_damaged_item(b: Backend, order_id: str, line_id: str, refund_to: str) -> dict[str, Any]:
    record, lines = _delivered(b, order_id, [line_id])
    target = _refund_target(b, record, refund_to)
    lines[0]["status"] = "refunded_damaged"
    record["refunds"].append({"amount": lines[0]["price"], "to": target, "reason": "damaged"})
    return {
        "order_id": record["order_id"],
        "line_id": lines[0]["line_id"],
        "refund": lines[0]["price"],
        "refund_to": target,
        "keep_item": True,
    }


# the account, and people


def update_account_address(
    b: Backend, customer_id: str, line1: str, city: str, state: str, zip: str, line2: str = ""
) -> dict[str, Any]:
    record = b.customer(customer_id)
    record["address"] = address_of(line1, city, state, zip, line2)
    return {"customer_id": record["customer_id"], "address": record["address"]}


def transfer_to_human(b: Backend, customer_id: str, summary: str) -> dict[str, Any]:
    record = b.customer(customer_id)
    if len(str(summary).strip()) < 10:
        raise ToolError("write a summary of at least a few words for the colleague who takes over")
    b.transfers.append({"customer_id": record["customer_id"]})
    return {"transferred": True, "queue": "customer-care", "wait_minutes": 4}


OPERATIONS: dict[str, Callable[..., dict[str, Any]]] = {
    f.__name__: f
    for f in (
        find_customer_by_email,
        find_customer_by_name,
        get_customer,
        get_order,
        get_product,
        track_parcel,
        cancel_order,
        change_delivery_address,
        change_order_payment,
        return_items,
        exchange_items,
        report_damaged_item,
        update_account_address,
        transfer_to_human,
    )
}
