"""The tools the shop agent offers the model, as OpenAI function definitions (14 of them)."""

from __future__ import annotations

from typing import Any

from examples.shop.backend import CANCEL_REASONS

CUSTOMER = {"type": "string", "description": "The customer's id, like cus_123456, from a customer look-up"}
ORDER = {"type": "string", "description": "The order id, like LK123456 (the customer's record lists them)"}
REFUND_TO = {
    "type": "string",
    "description": "payment_id to refund to: the order's own payment method, or a customer's gift card",
}
LINES = {
    "type": "array",
    "items": {"type": "string"},
    "description": "line_id of each item concerned, from the order's items",
}
ADDRESS = {
    "line1": {"type": "string", "description": "Street and number"},
    "line2": {"type": "string", "description": "Apartment, unit or suite, if any"},
    "city": {"type": "string", "description": "City"},
    "state": {"type": "string", "description": "Two-letter state code"},
    "zip": {"type": "string", "description": "Five-digit zip code"},
}


def _tool(
    name: str, description: str, properties: dict[str, Any], optional: tuple[str, ...] = ()
) -> dict[str, Any]:
    required = [k for k in properties if k not in optional]
    schema = {"type": "object", "properties": properties, "required": required}
    return {"type": "function", "function": {"name": name, "description": description, "parameters": schema}}


TOOLS: list[dict[str, Any]] = [
    _tool(
        "find_customer_by_email",
        "Find a customer's id from the email address on their account",
        {"email": {"type": "string", "description": "The email address the customer gave"}},
    ),
    _tool(
        "find_customer_by_name",
        "Find a customer's id from their first name, last name and zip code",
        {
            "first_name": {"type": "string", "description": "First name"},
            "last_name": {"type": "string", "description": "Last name"},
            "zip": {"type": "string", "description": "Zip code of the account's address"},
        },
    ),
    _tool(
        "get_customer",
        "Read a customer's record: name, email, address, payment methods and order ids",
        {"customer_id": CUSTOMER},
    ),
    _tool(
        "get_order",
        "Read an order: status, items with line ids and variants, payment, address, tracking",
        {"order_id": ORDER},
    ),
    _tool(
        "get_product",
        "Read a product: its variants with their options, prices and stock",
        {
            "product_id": {
                "type": "string",
                "description": "The product id, like prd_12345, from an order line",
            }
        },
    ),
    _tool(
        "track_parcel",
        "Follow a shipped parcel: carrier, status, expected delivery and scan events",
        {"tracking_number": {"type": "string", "description": "Tracking number from the order's fulfilment"}},
    ),
    _tool(
        "cancel_order",
        "Cancel a pending or processing order and refund it in full to its payment method",
        {
            "order_id": ORDER,
            "reason": {
                "type": "string",
                "enum": list(CANCEL_REASONS),
                "description": "Why the customer cancels",
            },
        },
    ),
    _tool(
        "change_delivery_address",
        "Send a pending or processing order to another address",
        {"order_id": ORDER, **ADDRESS},
        optional=("line2",),
    ),
    _tool(
        "change_order_payment",
        "Pay a pending or processing order with another of the customer's payment methods",
        {
            "order_id": ORDER,
            "payment_id": {"type": "string", "description": "payment_id from the customer's record"},
        },
    ),
    _tool(
        "return_items",
        "Return delivered items for a refund; the customer gets a return label",
        {"order_id": ORDER, "line_ids": LINES, "refund_to": REFUND_TO},
    ),
    _tool(
        "exchange_items",
        "Exchange delivered items for other variants of the same products",
        {
            "order_id": ORDER,
            "line_ids": LINES,
            "new_variant_ids": {
                "type": "array",
                "items": {"type": "string"},
                "description": "variant_id of each line's replacement, in the same order, from the product",
            },
            "payment_id": {
                "type": "string",
                "description": "payment_id that pays or receives the price difference",
            },
        },
    ),
    _tool(
        "report_damaged_item",
        "Refund a delivered item that arrived damaged; the customer keeps it",
        {
            "order_id": ORDER,
            "line_id": {"type": "string", "description": "line_id of the damaged item"},
            "refund_to": REFUND_TO,
        },
    ),
    _tool(
        "update_account_address",
        "Change the default address on the customer's account (not an order's delivery address)",
        {"customer_id": CUSTOMER, **ADDRESS},
        optional=("line2",),
    ),
    _tool(
        "transfer_to_human",
        "Hand the conversation to a human colleague, with a summary of the request",
        {
            "customer_id": CUSTOMER,
            "summary": {"type": "string", "description": "What the customer wants, briefly"},
        },
    ),
]
