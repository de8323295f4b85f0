"""Earlier user turns' readings, kept across the steps of a conversation.

A tool's missing values are looked for in the earlier user turns (`elsewhere.py`), each turn read
as the last one is: its spans, their features, the encoder's similarities with the parameters.
Every later step of the conversation, and every later turn, reads the same turns again for the
same tool: the reading is kept, keyed by a hash of the parameters' schema, the turn's text and the
day relative dates are read from, in a bounded LRU. A reading is a pure function of those (and of
the filler, the same for a decider's life), so a kept one is what reading again would give; each
caller gets its own copy.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable
from datetime import date
from typing import Any

from shadowswitch.engines.local.arguments.grounding import Filled
from shadowswitch.engines.local.arguments.today import Today
from shadowswitch.engines.local.runtime.lru import LRU

CACHE = 2048  # (tool, turn) readings kept: a few KB each

Fill = Callable[..., Filled]  # ArgumentFiller.fill


class TurnReadings:
    """`fill_text(fill, today)`: `fill(parameters, text, today=today)`, each reading kept."""

    def __init__(self, size: int = CACHE) -> None:
        self.cache: LRU[str, Filled] = LRU(size)

    def fill_text(self, fill: Fill, today: Today) -> Callable[[dict[str, Any], str], Filled]:
        # The clock's day where none is stated: a reading made before midnight is not today's.
        day = today.day or date.today()

        def read(parameters: dict[str, Any], text: str) -> Filled:
            schema = json.dumps(parameters, sort_keys=True, default=str)
            key = hashlib.sha1(f"{schema}\x1f{day}\x1f{today.unsure}\x1f{text}".encode()).hexdigest()
            kept = self.cache.get(key)
            if kept is None:
                kept = fill(parameters, text, today=today)
                if self.cache.size > 0:
                    self.cache.put(key, copy.deepcopy(kept))
                return kept
            return copy.deepcopy(kept)

        return read
