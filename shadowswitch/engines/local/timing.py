"""A decision's laps (candidates, scoring, arguments), as its trace's `timings_ms` keeps them."""

from __future__ import annotations

import time

from shadowswitch.engines.base import Choice


class Clock:
    """Milliseconds since the last lap, per lap, and the total stamped on the choice."""

    def __init__(self) -> None:
        self.start = self.last = time.perf_counter()
        self.laps: dict[str, float] = {}

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.laps[name] = round((now - self.last) * 1000, 2)
        self.last = now

    def stamp(self, choice: Choice) -> Choice:
        choice.trace.timings_ms = {**self.laps, "total": round((self.last - self.start) * 1000, 2)}
        return choice
