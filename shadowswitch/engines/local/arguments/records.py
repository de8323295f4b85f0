"""Which record of a tool result the conversation names.

"Charge it to my Amex card" names the payment method whose `brand` is Amex; "the order with the
daypack" the order whose line is a daypack; "your Amex card ending 1689", the agent's last reply,
the same method again. Which id a write takes is often which record the words name, and the id
itself is never said.

A value of a tool result belongs to a record: the object it is a key of, with everything under it
(`payment_methods[1]` for `payment_methods[1].payment_id`; the whole result for a top-level
`order_id`, so an order's lines count). The record is named when another of its values, a string
of three characters or more, is written as whole words in the user's turns (`record_said`) or in
the agent's last reply (`record_mentioned`). A customer's current `address.city` is not named by
the new address the user gives, nor by the email they gave: its record is the `address` object.
The pointer reads both as features (`pointer.py`); each agent's pairs say how much they weigh.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from shadowswitch.engines.local.arguments.memory import Found, ValueMemory

MIN_CHARS = 3  # "OR" or "S" is written in too many sentences to name anything


def record_of(path: str) -> str:
    """The object a leaf is a key of (`items[0].options` for `items[0].options.color`), "" for
    the whole result (a top-level key, or an element of a top-level list)."""
    return path.rsplit(".", 1)[0] if "." in path else ""


def within(path: str, record: str) -> bool:
    return not record or path.startswith((f"{record}.", f"{record}["))


@dataclass(frozen=True)
class Named:
    """Per tool result (its message's index), the paths of its values the user's turns (`said`)
    and the agent's last reply (`mentioned`) write."""

    said: dict[int, tuple[str, ...]]
    mentioned: dict[int, tuple[str, ...]]

    def features(self, found: Found) -> dict[str, float]:
        """`record_said` and `record_mentioned` of a value, when another value of its record is
        written there (its own being written is `said` and `mentioned`)."""
        if found.role != "tool":
            return {}
        own, record = found.entry.path, record_of(found.entry.path)
        out = {}
        for name, paths in (("record_said", self.said), ("record_mentioned", self.mentioned)):
            if any(p != own and within(p, record) for p in paths.get(found.message, ())):
                out[name] = 1.0
        return out


def named(memory: ValueMemory) -> Named:
    leaves = [f for f in memory if f.role == "tool" and f.entry.path and isinstance(f.entry.value, str)]
    return Named(_written(leaves, memory.user_text), _written(leaves, memory.last_reply))


def _written(leaves: Sequence[Found], text: str) -> dict[int, tuple[str, ...]]:
    """Per message, the paths of the values `text` writes, but those that several records of
    one list share (every payment method's `kind` is "card": it names none of them)."""
    lower = text.lower()
    shared = Counter((f.message, f.entry.pattern, str(f.entry.value).strip().lower()) for f in leaves)
    out: dict[int, list[str]] = {}
    for found in leaves:
        value = str(found.entry.value).strip()
        if len(value) < MIN_CHARS or value.lower() not in lower:
            continue
        if shared[(found.message, found.entry.pattern, value.lower())] > 1:
            continue
        if re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text, re.IGNORECASE):
            out.setdefault(found.message, []).append(found.entry.path)
    return {k: tuple(v) for k, v in out.items()}
