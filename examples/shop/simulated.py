"""The SIMULATED large model behind the shop agent: not a language model, a policy with a voice.

It reads the conversation (reading.py), decides the next step as a good model would (plan.py),
words its texts in one of several phrasings, and now and then makes the mistakes large models
make: a look-up with a mistyped or missing id that it then makes again correctly, a "let me check"
in text where a call was due, a second "are you sure?" after the customer's yes, and a
confirmation naming the wrong item, which the customer corrects. Every choice is seeded by the
conversation itself, so a replayed request gets the same answer.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

from examples.demo.simulated import MODEL_NAME, Answer
from examples.shop.plan import Call, Say, next_step
from examples.shop.reading import State, read, understand
from examples.shop.wording import words

BANNER = "SIMULATED large model for the shop agent (not an LM: a seeded policy with mistakes)"
LOOKUPS = {
    "get_customer": "customer_id",
    "get_order": "order_id",
    "get_product": "product_id",
    "track_parcel": "tracking_number",
}
WRONG_ID, MISSING_ID, FILLER, CONFIRM_AGAIN, WRONG_ITEM = 0.06, 0.02, 0.05, 0.25, 0.2


class ShopModel:
    """`answer(body)` for examples.demo.upstream.create_upstream: one chat completion's message."""

    name = MODEL_NAME
    banner = BANNER

    def __init__(self, seed: int = 7, mistakes: bool = True) -> None:
        self.seed = seed
        self.mistakes = mistakes

    def answer(self, body: dict[str, Any]) -> Answer:
        _, step, rng, key = self.decide(body)
        if isinstance(step, Call):
            return Answer(_tool_call(step, hashlib.sha256(key + b"|call").hexdigest()[:24]))
        return Answer({"role": "assistant", "content": words(step, rng)})

    def decide(self, body: dict[str, Any]) -> tuple[Call | Say, Call | Say, random.Random, bytes]:
        """(what its policy does next, what it does: that or a mistake, the generator its words
        are drawn from, the conversation's key)."""
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        state = read(messages)
        card = understand(state.users)
        opening = state.users[0] if state.users else ""
        key = f"{self.seed}|{opening}|{len(messages)}".encode()
        rng = random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))
        planned = next_step(state, card)
        return planned, self.slip(planned, state, rng) if self.mistakes else planned, rng, key

    def slip(self, step: Call | Say, state: State, rng: random.Random) -> Call | Say:
        """The step, or the mistake a large model makes there now and then."""
        roll = rng.random()
        fresh = not state.last_error and "moment" not in (state.texts[-1] if state.texts else "")
        if isinstance(step, Call) and step.name in LOOKUPS and fresh:
            key = LOOKUPS[step.name]
            if roll < WRONG_ID:
                return Call(step.name, {key: _mistype(str(step.arguments[key]), rng)})
            if roll < WRONG_ID + MISSING_ID:
                return Call(step.name, {})
            if roll < WRONG_ID + MISSING_ID + FILLER and state.last == "tool":
                return Say("filler")
        writing = isinstance(step, Call) and step.name not in (*LOOKUPS, "transfer_to_human")
        if writing and state.confirmations() == 1 and roll < CONFIRM_AGAIN:
            return Say("confirm_again")
        if not isinstance(step, Say) or not step.act.startswith("confirm_") or state.confirmations():
            return step
        if step.facts.get("others") and roll < WRONG_ITEM:
            wrong = rng.choice(step.facts["others"])
            return Say(step.act, {**step.facts, "items": [wrong], "wrong_item": True})
        return step


def _mistype(value: str, rng: random.Random) -> str:
    """An id one digit off, or with two digits swapped: what a model copying by eye gets wrong."""
    digits = [i for i, c in enumerate(value) if c.isdigit()]
    i = rng.choice(digits) if digits else len(value) - 1
    if digits and i + 1 in digits and value[i] != value[i + 1] and rng.random() < 0.5:
        return value[:i] + value[i + 1] + value[i] + value[i + 2 :]
    new = str((int(value[i]) + rng.choice((1, 9))) % 10) if value[i].isdigit() else "0"
    return value[:i] + new + value[i + 1 :]


def _tool_call(step: Call, seed: str) -> dict[str, Any]:
    """The call, its id seeded by the conversation as the rest: a replayed request gets the id
    its recorded result answers, so the proxy judges the call by that result, as it does live."""
    function = {"name": step.name, "arguments": json.dumps(step.arguments)}
    call = {"id": f"call_{seed}", "type": "function", "function": function}
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def simulated(seed: int = 7, mistakes: bool = True) -> ShopModel:
    """The shop's simulated upstream, for examples.demo.upstream.create_upstream."""
    return ShopModel(seed, mistakes)
