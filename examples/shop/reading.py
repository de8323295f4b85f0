"""What the simulated model reads from a conversation: the customer's request (the card) and the
tools' results so far (the state).

The card is what a large model understands from the customer's words: the intent, the identity
they gave, the order id or the products they name, the reason, where a refund goes, a new address.
Every value in it is read from the customer's own text; everything else the model writes comes
from the tools' results, which the state keeps in order.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from examples.shop.data import PRODUCTS

EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
NAME_ZIP = re.compile(
    r"(?:I'm|I am|[Nn]ame(?: is|:)?|[Tt]his is|[Ii]t's)\s+([A-Z][a-z]+) ([A-Z][a-z]+)\b"
    r".*?\bzip(?: code)?(?: is)?:?\s+(\d{5})"
)
ORDER_ID = re.compile(r"\bLK\d{6}\b")
ADDRESS = re.compile(
    r"(\d+ [A-Z][a-z]+ (?:Street|Road|Avenue|Lane|Drive|Court))(?:,? ((?:Apt|Unit) \d+))?"
    r", ([A-Z][a-z]+), ([A-Z]{2}) (\d{5})"
)
# intent → words that say it, tried in this order (the first intent whose word appears wins)
INTENTS = (
    ("human", ("a human", "a person", "manager", "supervisor", "real person")),
    ("damaged", ("damaged", "broken", "cracked", "smashed")),
    ("exchange", ("exchange", "swap")),
    ("return", ("return", "send back")),
    ("cancel", ("cancel",)),
    ("payment", ("pay for", "payment", "charge it to")),
    ("account_address", ("moved", "account address", "default address", "address on my account")),
    ("order_address", ("ship it to", "deliver it to", "delivery address", "send it to", "shipping address")),
    ("status", ("where is", "track", "status", "arrived yet", "shipped yet")),
)
YES = ("yes", "yep", "go ahead", "correct", "sure, do it", "please do", "that's right")
CLOSING = ("that's all", "that is all", "nothing else", "no, thanks", "no thanks", "all good")


@dataclass(frozen=True)
class Card:
    """The customer's request as the model understands it; None where they have not said."""

    intent: str
    email: str | None = None
    name: tuple[str, str, str] | None = None  # first, last, zip
    order_id: str | None = None
    products: tuple[str, ...] = ()
    reason: str | None = None  # cancel_order's enum
    refund: str | None = None  # "original" or "gift_card"
    address: dict[str, str] | None = None
    pay_with: str | None = None  # "gift_card", "paypal" or a card brand
    text: str = ""  # everything the customer wrote, for the new variant's option


def understand(users: list[str]) -> Card:
    """The card from the customer's turns so far: the first turn gives the intent, any turn the rest."""
    opening = users[0].lower() if users else ""
    intent = next((i for i, words in INTENTS if any(w in opening for w in words)), "unknown")
    text = "\n".join(users)
    low = text.lower()
    email = EMAIL.search(text)
    name = NAME_ZIP.search(text)
    order = ORDER_ID.search(text)
    address = ADDRESS.search(text)
    products = tuple(sorted((p for p in PRODUCTS if p in low), key=low.index))
    return Card(
        intent=intent,
        email=email[0] if email else None,
        name=(name[1], name[2], name[3]) if name else None,
        order_id=order[0] if order else None,
        products=products,
        reason=_reason(low),
        refund=_refund(low, intent),
        address=_address(address) if address else None,
        pay_with=_pay_with(low) if intent == "payment" else None,
        text=text,
    )


def _reason(low: str) -> str | None:
    if any(w in low for w in ("by mistake", "by accident", "ordered the wrong", "mistakenly")):
        return "ordered_by_mistake"
    if any(w in low for w in ("no longer need", "don't need", "do not need", "changed my mind")):
        return "no_longer_needed"
    return None


def _refund(low: str, intent: str) -> str | None:
    if intent not in ("return", "damaged"):
        return None
    if "gift card" in low or "store credit" in low:
        return "gift_card"
    if any(w in low for w in ("original", "same card", "back to my card", "the way i paid", "paid with")):
        return "original"
    return None


def _pay_with(low: str) -> str | None:
    for word, kind in (("gift card", "gift_card"), ("paypal", "paypal")):
        if word in low:
            return kind
    return next((b for b in ("Visa", "Mastercard", "Amex") if b.lower() in low), None)


def _address(found: re.Match[str]) -> dict[str, str]:
    address = {"line1": found[1], "city": found[3], "state": found[4], "zip": found[5]}
    return {**address, "line2": found[2]} if found[2] else address


@dataclass(frozen=True)
class Done:
    """One tool call the model made and what came back."""

    name: str
    arguments: dict[str, Any]
    result: Any  # the parsed record, or None when the tool refused
    error: str | None


@dataclass
class State:
    """The conversation as the model reads it: customer turns, its own texts, the calls done."""

    users: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)  # the model's own text replies, in order
    calls: list[Done] = field(default_factory=list)
    last: str = ""  # the role of the last message
    last_text: str = ""  # the model's last text reply, if the last turn was the customer's answer to it

    def result(self, name: str, **arguments: Any) -> Any:
        """The newest successful result of `name` called with (at least) these arguments."""
        for done in reversed(self.calls):
            if (
                done.name == name
                and done.error is None
                and all(done.arguments.get(k) == v for k, v in arguments.items())
            ):
                return done.result
        return None

    @property
    def last_error(self) -> bool:
        return self.last == "tool" and bool(self.calls) and self.calls[-1].error is not None

    def answered_yes(self) -> bool:
        """The model's last text asked for a confirmation and the customer's last turn says yes."""
        if self.last != "user" or "(yes/no)" not in self.last_text:
            return False
        said = self.users[-1].lower()
        return said.startswith(YES) or any(w in said for w in ("go ahead", "please do", "i'm sure"))

    def answered_no(self) -> bool:
        said = self.users[-1].lower() if self.users else ""
        return self.last == "user" and "(yes/no)" in self.last_text and re.match(r"no\b", said) is not None

    def confirmations(self) -> int:
        return sum("(yes/no)" in t for t in self.texts)


def read(messages: list[dict[str, Any]]) -> State:
    """The state of a chat-completions conversation (system, user, assistant and tool messages)."""
    state = State()
    pending: dict[str, tuple[str, dict[str, Any]]] = {}
    for message in messages:
        role = str(message.get("role"))
        content = message.get("content")
        text = content if isinstance(content, str) else ""
        if role == "user":
            state.users.append(text)
        elif role == "assistant":
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                try:
                    arguments = json.loads(function.get("arguments") or "{}")
                except ValueError:
                    arguments = {}
                pending[str(call.get("id"))] = (
                    str(function.get("name")),
                    arguments if isinstance(arguments, dict) else {},
                )
            if not message.get("tool_calls"):
                state.texts.append(text)
        elif role == "tool":
            name, arguments = pending.pop(str(message.get("tool_call_id")), ("", {}))
            error = text.removeprefix("error: ") if text.startswith("error") else None
            state.calls.append(Done(name, arguments, None if error else json.loads(text), error))
        state.last = role
    if state.last == "user" and len(messages) >= 2 and messages[-2].get("role") == "assistant":
        state.last_text = str(messages[-2].get("content") or "")
    return state
