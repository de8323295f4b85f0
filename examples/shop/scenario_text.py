"""The customers' words: how each kind of request opens, how they say who they are, why they
cancel and where a refund goes. Several phrasings each, picked by the scenario's seeded dice."""

from __future__ import annotations

import random
from typing import Any

OPENINGS: dict[str, dict[str, tuple[str, ...]]] = {
    "status": {
        "id": ("Hi, where is my order {order_id}?", "Can you track order {order_id} for me?"),
        "product": (
            "Has the {product} I ordered shipped yet?",
            "Hello! Can you track the order with my {product}?",
            "I'd like a status update on the order with the {product}.",
            "Where is my {product}? It should be on its way.",
        ),
    },
    "cancel": {
        "id": (
            "I want to cancel order {order_id}. {reason_text}",
            "Please cancel my order {order_id}. {reason_text}",
        ),
        "product": (
            "Hi, please cancel the order with the {product}. {reason_text}",
            "Can I still cancel my {product} order? {reason_text}",
            "I'd like to cancel the order that has the {product} in it. {reason_text}",
        ),
    },
    "cancel_refused": {
        "id": (
            "Please cancel order {order_id}, I don't need it.",
            "Hello, I want to cancel order {order_id}.",
        ),
    },
    "return": {
        "id": ("I'd like to return the {products} from order {order_id}. {refund_text}",),
        "product": (
            "Hi, I need to send back the {products} I received. {refund_text}",
            "Can I return my {products}? {refund_text}",
            "I'd like to return the {products}, they don't suit me. {refund_text}",
        ),
    },
    "exchange": {
        "id": ("I'd like to exchange the {product} from order {order_id} for {new_words}.",),
        "product": (
            "Hello, could I swap my {product} for {new_words}?",
            "I'd like to exchange the {product} I got for {new_words}, please.",
            "The {product} isn't quite right: can I exchange it for {new_words}?",
        ),
    },
    "damaged": {
        "id": ("The {product} from my order {order_id} arrived damaged. {refund_text}",),
        "product": (
            "My {product} arrived damaged. {refund_text}",
            "Hi, the {product} I received is cracked. {refund_text}",
            "The {product} came broken, what can you do? {refund_text}",
        ),
    },
    "order_address": {
        "id": ("Please change the delivery address of order {order_id} to {address_text}.",),
        "product": (
            "Can you send it to {address_text} instead? It's the order with the {product}.",
            "I need the shipping address for my {product} order changed to {address_text}.",
        ),
    },
    "payment": {
        "id": ("I'd like to pay for order {order_id} with my {method} instead.",),
        "product": ("Can you charge it to my {method} instead? It's the order with the {product}.",),
    },
    "account_address": {
        "any": (
            "I've moved: please update my account address to {address_text}.",
            "Can you change the default address on my account to {address_text}?",
        ),
    },
    "human": {
        "any": (
            "I want to talk to a real person about a charge on my card.",
            "Can I speak to a manager please? My parcel was left out in the rain.",
            "I'd like to file a complaint with a supervisor about the courier.",
        ),
    },
}
# Openings worded as none of the above is, for test customers only (`--new-wording`): a new
# customer says the same request in words the shadow stream never showed. Each keeps a word the
# simulated model reads the request by (reading.INTENTS), as a large model would understand it.
REWORDED: dict[str, dict[str, tuple[str, ...]]] = {
    "status": {
        "id": (
            "Any update on {order_id}? I'd like to track where it is now.",
            "Order {order_id}: has it shipped yet, or is it still in the warehouse?",
        ),
        "product": (
            "My {product} hasn't turned up. Could you track it down for me?",
            "Just checking on the status of my {product}, is it coming soon?",
        ),
    },
    "cancel": {
        "id": (
            "{order_id} needs to be cancelled, please. {reason_text}",
            "Could you cancel {order_id} for me? {reason_text}",
        ),
        "product": (
            "Is it too late to cancel what I bought, the {product}? {reason_text}",
            "About the {product}: I'd like that order cancelled. {reason_text}",
        ),
    },
    "cancel_refused": {
        "id": ("Could you cancel {order_id}? I don't need it.", "Cancel {order_id} for me please."),
    },
    "return": {
        "id": ("Order {order_id}: I want to return the {products}. {refund_text}",),
        "product": (
            "The {products} aren't what I hoped for. How do I return them? {refund_text}",
            "Could I send back the {products} please? {refund_text}",
        ),
    },
    "exchange": {
        "id": ("For order {order_id}, can the {product} be swapped for {new_words}?",),
        "product": (
            "Is an exchange possible? I want {new_words} instead of my {product}.",
            "I'd like to exchange my {product}: {new_words} would suit me better.",
        ),
    },
    "damaged": {
        "id": ("Order {order_id} came with the {product} damaged. {refund_text}",),
        "product": (
            "Bad news: the {product} was smashed when I opened the box. {refund_text}",
            "The {product} I got is broken. {refund_text}",
        ),
    },
    "order_address": {
        "id": ("Could you ship it to {address_text} instead? That's order {order_id}.",),
        "product": (
            "Please ship it to {address_text}, the order with my {product}.",
            "For my {product}, the delivery address has to change to {address_text}.",
        ),
    },
    "payment": {
        "id": ("Could you switch the payment on order {order_id} to my {method}?",),
        "product": ("I'd rather pay for the {product} order with my {method}.",),
    },
    "account_address": {
        "any": (
            "New home for me at {address_text}. Could you update the address on my account?",
            "Please make {address_text} the default address on my account.",
        ),
    },
    "human": {
        "any": (
            "I need a human to look at a double charge on my card.",
            "Put me through to a supervisor, I'm not happy with how my parcel was handled.",
        ),
    },
}
NEW_WORDS = {"size": "size {v}", "color": "the {v} one"}  # any other option: "the {v} version"


def opening_values(customer: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    return {"reason_text": "", "refund_text": "", "first": customer["name"]["first"]}


def new_words(option: str, value: str) -> str:
    return NEW_WORDS.get(option, "the {v} version").format(v=value)


def identity_text(customer: dict[str, Any], by_email: bool, rng: random.Random, upfront: bool) -> str:
    """How the customer says who they are: with the opening, or when the agent asks."""
    first, last, zipcode = customer["name"]["first"], customer["name"]["last"], customer["address"]["zip"]
    if by_email:
        choices = (
            ("My email is {e}.", "My account is under {e}.")
            if upfront
            else ("Sure, it's {e}.", "{e}", "My email address is {e}.")
        )
        return rng.choice(choices).format(e=customer["email"])
    choices = ("I'm {f} {l}, zip code {z}.", "Name: {f} {l}, zip {z}.")
    if not upfront:
        choices = (*choices, "It's {f} {l}, zip code {z}.")
    return rng.choice(choices).format(f=first, l=last, z=zipcode)


def reason_text(reason: str, rng: random.Random) -> str:
    if reason == "ordered_by_mistake":
        return rng.choice(("I ordered it by mistake.", "I ordered the wrong thing by mistake."))
    return rng.choice(("I no longer need it.", "I don't need it any more."))


def refund_text(kind: str, rng: random.Random, upfront: bool) -> str:
    if kind == "gift_card":
        return rng.choice(("Please refund it to my gift card.", "Store credit on my gift card is fine."))
    if upfront:
        return rng.choice(
            ("The refund can go back to my card.", "Please refund the original payment method.")
        )
    return rng.choice(("Back to the original payment method, please.", "To the same card I paid with."))
