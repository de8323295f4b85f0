"""How a reader is judged against its oracle: per case, read (the right value at the phrase's
place), missed (no value there) or misread (a wrong value over any part of the phrase)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Found = list[tuple[Any, int, int]]  # value, start, end


@dataclass
class Tally:
    tried: int = 0
    read: int = 0
    missed: int = 0
    misread: int = 0
    examples: list[str] = field(default_factory=list)

    def judge(self, text: str, truth: Any, start: int, end: int, found: Found) -> None:
        """One case: `truth` is written at text[start:end]; `found` is what the reader offers."""
        self.tried += 1
        over = [(v, s, e) for v, s, e in found if s < end and start < e]
        wrong = [v for v, _, _ in over if v != truth]
        if wrong:
            self.misread += 1
            if len(self.examples) < 10:
                self.examples.append(f"{text!r}: {truth!r} read as {wrong[0]!r}")
        elif any(s == start and e == end for _, s, e in over):
            self.read += 1
        else:
            self.missed += 1

    def summary(self) -> dict[str, Any]:
        return {
            "tried": self.tried,
            "read": self.read,
            "missed": self.missed,
            "misread": self.misread,
            "misread_examples": self.examples,
        }
