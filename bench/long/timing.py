"""Where a decision's time goes: the engine's parts, each timed exclusively (a part called inside
another counts for itself alone), by wrapping them where the engine's modules hold them."""

from __future__ import annotations

import functools
import sys
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

# (part, module, attribute): a class's method, or a function under every name modules import it as
PARTS = (
    ("encoder", "shadowswitch.engines.local.runtime.encoder", "Encoder._encode"),
    ("lm", "shadowswitch.engines.local.runtime.lm", "LanguageModel._forward"),
    ("lm", "shadowswitch.engines.local.runtime.grammar", "SchemaDecoder.decode"),
    ("memory", "shadowswitch.engines.local.arguments.memory", "MemoryReader.read"),
    ("readers", "shadowswitch.engines.local.arguments.extract", "extract"),
    ("readers", "shadowswitch.engines.local.arguments.memory", "result_entries"),
    ("turn", "shadowswitch.engines.local.conversation_state", "conversation_state"),
    ("turn", "shadowswitch.engines.local.conversation", "turn_state"),
    ("turn", "shadowswitch.engines.local.conversation", "called_this_turn"),
    ("turn", "shadowswitch.engines.local.conversation", "user_turns"),
    ("turn", "shadowswitch.engines.local.conversation", "results_this_turn"),
    ("turn", "shadowswitch.engines.local.arguments.today", "stated_today"),
    ("candidates", "shadowswitch.engines.local.choice.candidates", "build_candidates"),
)


class Parts:
    """Milliseconds per part since the last `take`; what no part covers is the decision's rest."""

    def __init__(self) -> None:
        self.seconds: Counter[str] = Counter()
        self._stack: list[list[Any]] = []  # [part, since]

    def wrap(self, part: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            now = time.perf_counter()
            if self._stack:  # the caller's part pauses
                outer = self._stack[-1]
                self.seconds[outer[0]] += now - outer[1]
            self._stack.append([part, now])
            try:
                return fn(*args, **kwargs)
            finally:
                end = time.perf_counter()
                name, since = self._stack.pop()
                self.seconds[name] += end - since
                if self._stack:
                    self._stack[-1][1] = end

        return timed

    def install(self) -> None:
        """Wrap every part where the engine's modules hold it (imported by name or as a method)."""
        for part, module, attribute in PARTS:
            owner: Any = sys.modules[module]
            if "." in attribute:
                cls, name = attribute.split(".")
                owner = getattr(owner, cls)
                setattr(owner, name, self.wrap(part, getattr(owner, name)))
                continue
            original = getattr(owner, attribute)
            timed = self.wrap(part, original)
            for loaded in list(sys.modules.values()):
                if getattr(loaded, "__name__", "").startswith("shadowswitch.") and (
                    getattr(loaded, attribute, None) is original
                ):
                    setattr(loaded, attribute, timed)

    def take(self) -> dict[str, float]:
        out: dict[str, float] = {part: round(s * 1000, 3) for part, s in self.seconds.items()}
        self.seconds.clear()
        return out
