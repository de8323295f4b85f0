"""How often each candidate was the upstream's choice in each state of the conversation: a count
model of the agent's policy, read by the choice head as one shared feature.

A state is what the conversation says about the next step whatever the words: who spoke last (the
user, or a tool's result), the last tool and whether it failed, whether the user just answered a
confirmation, whether a list of ids is being walked. Many of an agent's steps follow from it
alone: after a customer's record is found by email, its details are read next. The head's
transition weights `T` say this too, but L2-shrunk they stay small whatever the evidence (0.81
for a step the upstream took 96 times in 100); a share of counts grows sure as the pairs agree.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from shadowswitch.learning.head_features import Example

ALPHA = 0.5  # pseudo-count per offered candidate (Jeffreys): an unseen state is uniform


def state_of(e: Example) -> str:
    turn = e.turn or {}
    parts = (turn.get("last_role", ""), e.last_tool or "", int(e.last_error), turn.get("confirm", ""))
    return "|".join(map(str, (*parts, int(bool(turn.get("open_walks"))))))


class StateCounts:
    def __init__(self, counts: Mapping[str, Mapping[str, int]] | None = None) -> None:
        self.counts = {s: Counter(labels) for s, labels in (counts or {}).items()}

    @classmethod
    def of(cls, examples: Iterable[Example]) -> StateCounts:
        counts: dict[str, Counter[str]] = {}
        for e in examples:
            counts.setdefault(state_of(e), Counter())[e.label] += 1
        return cls(counts)

    def log_shares(self, e: Example, offered: list[str], leave_out: bool) -> list[float]:
        """log P(candidate | e's state) for each offered candidate, smoothed over them; `leave_out`:
        e is a training example, its own label not counted."""
        labels = self.counts.get(state_of(e), Counter())
        own = int(leave_out)
        total = max(sum(labels.values()) - own, 0) + ALPHA * max(len(offered), 1)
        return [math.log((max(labels[c] - (own if c == e.label else 0), 0) + ALPHA) / total) for c in offered]

    def to_json(self) -> dict[str, dict[str, int]]:
        return {s: dict(labels) for s, labels in self.counts.items()}
