"""The simulated customer: answers the agent's questions as the scenario says, then says goodbye.

It reads the agent's text as a person would skim it: a question about the email address gets
the identity, a "(yes/no)" question gets a yes (or the scenario's no), unless it names the wrong
item, which the customer corrects. A question about why, or where the refund goes, gets the
scenario's answer; a "one moment" gets a nod. Anything else ends the request.
"""

from __future__ import annotations

import random

from examples.shop.scenarios import Scenario

YES = ("Yes, please.", "Yes", "Yes, go ahead.", "Sure, do it.", "yes please")
NO = ("No, please leave it as it is.", "No, don't change anything.")
AGAIN = ("Yes, I'm sure.", "Yes, go ahead.")
CLOSING = ("That's all, thanks!", "That's all, thank you.", "No thanks, that's everything.")


class Customer:
    def __init__(self, scenario: Scenario, seed: int = 0) -> None:
        self.scenario = scenario
        self.rng = random.Random(f"{seed}:{scenario.id}:customer")
        self.identified = scenario.identity_upfront
        self.done = False

    def opening(self) -> str:
        return self.scenario.opening

    def reply(self, text: str) -> str | None:
        """The customer's next turn after the agent's `text`, or None: the conversation is over."""
        if self.done:
            return None
        low = text.lower()
        if "(yes/no)" in low:
            return self._confirm(low)
        if "email" in low and not self.identified:
            self.identified = True
            return self.scenario.identity
        if ("why" in low or "reason" in low) and "reason" in self.scenario.answers:
            return self.scenario.answers["reason"]
        if "refund" in low and "gift card" in low and "refund" in self.scenario.answers:
            return self.scenario.answers["refund"]
        if "moment" in low:
            return self.rng.choice(("Sure.", "Okay, thanks.", "Sure, take your time."))
        self.done = True
        if "can't" in low or "cannot" in low:
            return "No thanks, I'll keep it then."
        return self.rng.choice(CLOSING)

    def _confirm(self, low: str) -> str:
        named = [p for p in self.scenario.products if p in low]
        items = self.scenario.intent in ("return", "exchange", "damaged")
        if items and len(named) < len(self.scenario.products) and "sure" not in low:
            missing = next(p for p in self.scenario.products if p not in named)
            return self.rng.choice(
                ("That's the wrong item: I meant the {p}.", "Hmm, not that one. It's the {p}.")
            ).format(p=missing)
        if "are you sure" in low or "just to be sure" in low:
            return self.rng.choice(AGAIN)
        return self.rng.choice(NO if self.scenario.decline else YES)
