"""How the simulated model words each kind of text, several ways each, picked by its seeded dice.

Every phrasing of an act keeps the words the customer (customer.py) reacts to: a confirmation
ends in "(yes/no)", a request for identity names the email address, a report of a change asks
whether there is anything else.
"""

from __future__ import annotations

import functools
import random
from pathlib import Path
from typing import Any

import yaml

from examples.shop.plan import Say


@functools.cache
def phrases() -> dict[str, list[str]]:
    """Act → its phrasings, from phrases.yaml."""
    loaded: dict[str, list[str]] = yaml.safe_load((Path(__file__).parent / "phrases.yaml").read_text())
    return loaded


def words(say: Say, rng: random.Random) -> str:
    """The text of `say`, in one of its phrasings."""
    facts = _spelled(say.facts)
    phrasing = rng.choice(phrases()[say.act])
    try:
        return phrasing.format(**facts)
    except (KeyError, ValueError):  # a phrasing needing a fact this step lacks: the plainest one
        return phrases()[say.act][-1].format_map(_Blank(facts))


class _Blank(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "it" if key != "first" else "there"


def _spelled(facts: dict[str, Any]) -> dict[str, Any]:
    out = {"first": "there", **facts}
    items = list(facts.get("items") or [])
    out["items"] = " and the ".join(items) if items else "item"
    if "address" in facts:
        a = facts["address"]
        out["address_words"] = ", ".join(
            x for x in (a["line1"], a.get("line2"), a["city"], f"{a['state']} {a['zip']}") if x
        )
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
