"""How the simulated model words each kind of text, several ways each, picked by its seeded dice.

Every phrasing of an act keeps the words the customer (customer.py) reacts to: a confirmation
ends in "(yes/no)", a request for identity names the email address, a report of a change asks
whether there is anything else.
"""

from __future__ import annotations

import random
from typing import Any

from examples.shop.plan import Say

PHRASES: dict[str, tuple[str, ...]] = {
    "ask_identity": (
        "Happy to help! First I need to verify your account: could you give me your email address, or your full name and zip code?",
        "Sure. Before I can look into that, what is the email address on your account? Your full name and zip code work too.",
        "I can help with that. To find your account, please tell me your email address (or your first and last name with your zip code).",
    ),
    "not_found": (
        "I couldn't find an account with those details. Could you check them, or give me your email address instead?",
    ),
    "ask_order": ("Thanks, {first}. Which order is this about? The order id or the items in it will do.",),
    "no_such_order": (
        "I couldn't find an order with {products} on your account. Could you give me the order id?",
    ),
    "not_yours": ("I can't find order {order_id} on your account. Could you check the number?",),
    "unsupported": (
        "I'm sorry, {first}, that isn't something I can help with here. Is there anything else?",
    ),
    "filler": (
        "Let me pull that up for you, one moment.",
        "One moment while I check that.",
        "Thanks! Give me a moment to look that up.",
    ),
    "ask_reason": (
        "I can cancel order {order_id} for you, {first}. May I ask why you'd like to cancel: you no longer need it, or it was ordered by mistake?",
        "Order {order_id} is still {status}, so it can be cancelled. What is the reason: no longer needed, or ordered by mistake?",
    ),
    "ask_refund": (
        "Got it: the {items} from order {order_id}. Would you like the refund of ${refund:.2f} to the original payment method, or to your gift card as store credit?",
        "I found the {items} in order {order_id}. Should the refund go back to the original payment method or onto your gift card?",
    ),
    "ask_address": ("Which address should I use? Please give the street and number, city, state and zip.",),
    "ask_payment": ("Which of your payment methods would you like to use for order {order_id}?",),
    "no_variant": (
        "I'm sorry, the variant you asked for is not available for the {items}. Would another one work?",
    ),
    "preparing": (
        "Order {order_id} was placed on {placed_on} and is being prepared; it hasn't shipped yet. Anything else I can do?",
    ),
    "tracking": (
        "Your order {order_id} is with {carrier}: {parcel}, expected or delivered on {eta}. Is there anything else I can help with?",
        "I've checked the parcel for order {order_id}: it's {parcel} with {carrier}, date {eta}. Anything else?",
    ),
    "cannot_cancel": (
        "Order {order_id} is already {status}, so it can't be cancelled any more. If you don't want it, I can start a return instead once it's delivered.",
        "I'm sorry, {first}: order {order_id} is {status} and cannot be cancelled. A return is possible after delivery instead.",
    ),
    "confirm_cancel_order": (
        "To confirm: I'll cancel order {order_id} (reason: {reason_words}) and refund ${total:.2f} to its payment method. Shall I go ahead? (yes/no)",
        "Here's what I'll do: cancel the whole order {order_id} and refund ${total:.2f} to the original payment method. Do you want me to proceed? (yes/no)",
    ),
    "confirm_return_items": (
        "I'll start a return for the {items} from order {order_id}, refunding ${refund:.2f} to {refund_words}; a return label goes to your email. Shall I go ahead? (yes/no)",
        "To confirm: return the {items} (order {order_id}) with a refund of ${refund:.2f} to {refund_words}. Is that right? (yes/no)",
    ),
    "confirm_exchange_items": (
        "I'll exchange the {items} from order {order_id} for the {option_words} variant; any price difference goes to the order's payment method. Shall I go ahead? (yes/no)",
        "To confirm: swap the {items} in order {order_id} for {option_words}. Do you want me to proceed? (yes/no)",
    ),
    "confirm_report_damaged_item": (
        "Sorry about that! I'll refund ${refund:.2f} for the damaged {items} from order {order_id} to {refund_words}, and you can keep it. Shall I go ahead? (yes/no)",
        "To confirm: a refund of ${refund:.2f} for the {items} (order {order_id}) to {refund_words}. Proceed? (yes/no)",
    ),
    "confirm_change_delivery_address": (
        "I'll send order {order_id} to {address_words} instead. Shall I go ahead? (yes/no)",
        "To confirm: the new delivery address for order {order_id} is {address_words}. Is that correct? (yes/no)",
    ),
    "confirm_change_order_payment": (
        "I'll switch the payment of order {order_id} to {method_words}. Shall I go ahead? (yes/no)",
    ),
    "confirm_update_account_address": (
        "I'll change the address on your account to {address_words}; orders already placed keep theirs. Shall I go ahead? (yes/no)",
        "To confirm: your account's default address becomes {address_words}. Proceed? (yes/no)",
    ),
    "confirm_again": (
        "Just to be sure before I make the change: do you want me to go ahead? (yes/no)",
        "This can't be undone from the chat. Are you sure? (yes/no)",
    ),
    "done_cancel_order": (
        "Done: order {order_id} is cancelled and the refund is on its way. Anything else?",
    ),
    "done_return_items": (
        "The return is set up: label {label}, refund of ${refund:.2f} once the parcel arrives. Anything else I can help with?",
        "All set: you'll get return label {label} by email. Is there anything else?",
    ),
    "done_exchange_items": (
        "Done: the exchange for order {order_id} is booked. Anything else I can do for you?",
    ),
    "done_report_damaged_item": ("Done: ${refund:.2f} is refunded for the damaged {items}. Anything else?",),
    "done_change_delivery_address": ("Done: order {order_id} now ships to {address_words}. Anything else?",),
    "done_change_order_payment": ("Done: order {order_id} is now paid with {method_words}. Anything else?",),
    "done_update_account_address": (
        "Your account address is updated. Is there anything else I can help with?",
    ),
    "done_transfer_to_human": (
        "I've passed your request to a colleague, who will join this chat in a few minutes.",
        "Thanks for your patience: a member of our team will take over shortly.",
    ),
    "failed": ("I'm sorry, that didn't work: {error}. Is there anything else I can do?",),
    "declined": (
        "No problem, I've left everything as it was. Anything else?",
        "Okay, no changes made. Anything else?",
    ),
    "goodbye": (
        "Thanks for shopping with Larkspur, {first}! Have a great day.",
        "You're welcome! Happy trails.",
    ),
}


def words(say: Say, rng: random.Random) -> str:
    """The text of `say`, in one of its phrasings."""
    facts = _spelled(say.facts)
    phrasing = rng.choice(PHRASES[say.act])
    try:
        return phrasing.format(**facts)
    except (KeyError, ValueError):  # a phrasing needing a fact this step lacks: the plainest one
        return PHRASES[say.act][-1].format_map(_Blank(facts))


class _Blank(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "it" if key != "first" else "there"


def _spelled(facts: dict[str, Any]) -> dict[str, Any]:
    out = {"first": "there", **facts}
    items = list(facts.get("items") or [])
    out["items"] = " and the ".join(items) if items else "item"
    if "address" in facts:
        a = facts["address"]
        out["address_words"] = ", ".join(x for x in (a["line1"], a.get("line2"), a["city"], f"{a['state']} {a['zip']}") if x)  # fmt: skip
    if "method" in facts:
        m = facts["method"]
        out["method_words"] = {"gift_card": "your gift card", "paypal": "your PayPal account"}.get(
            m["kind"], f"your {m.get('brand')} card ending {m.get('last4')}"
        )
    out["refund_words"] = (
        "your gift card" if facts.get("refund_kind") == "gift_card" else "the original payment method"
    )
    out["reason_words"] = str(facts.get("reason", "")).replace("_", " ") or "as you asked"
    out["option_words"] = ", ".join(f"{k} {v}" for k, v in (facts.get("options") or {}).items())
    result = facts.get("result") or {}
    out["label"] = result.get("label", "")
    refund = result.get("refund", facts.get("refund", 0.0))
    out["refund"] = float((refund.get("amount") if isinstance(refund, dict) else refund) or 0.0)
    out["total"] = float(facts.get("total", 0.0))
    return out
