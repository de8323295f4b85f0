"""A decision's engine time, capped (`engine.time_budget_ms`): past it the engine abstains with
`time_budget` and the upstream answers.

The slow parts of a decision are the models' passes, above all the language model's over a value
(decoding a structured value such as an array of objects: one pass per token, each over the
tool's schema and the conversation). The deadline of the decision in hand is checked before each
layer of a model (`interruptible`) and between the filler's steps, so a decision overruns its
budget by one layer's time at most. The budget counts the decision's own work, not its wait in
the queue nor the encoder pass it shares with its batch.

The same checks let background work (a shadow run, learning's fill) give way at once to a request
a user waits for (`yielding`): it stops, and the engine's worker runs it again later. While it may
give way, its budget is the background's (`background`), not the served path's: no user waits for
it, and a shadow run cut short on a loaded machine is a pair lost to learning. Run ahead of a user
(it waited too long), it is capped by its policy's budget again, which bounds that user's wait.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from typing import Any

from shadowswitch.engines.base import TIME_BUDGET

_current = threading.local()  # the deadline of the decision this thread is working on
BACKGROUND_BUDGET_MS = 30_000  # a background run's engine time while it yields to served work
_hooked: weakref.WeakSet[Any] = weakref.WeakSet()  # layers that check it already


class OverBudget(Exception):
    """Raised inside a decision whose engine time has run out; the decider abstains on it."""


class Preempted(Exception):
    """Raised inside background work when a job a user waits for is queued: the worker puts the
    background job back and runs it again later (`yielding`)."""


class Deadline:
    def __init__(self, budget_ms: float = math.inf, clock: Callable[[], float] = time.perf_counter) -> None:
        self.clock = clock
        self.at = clock() + budget_ms / 1000

    def check(self) -> None:
        """Raise `OverBudget` once the deadline has passed."""
        if self.clock() > self.at:
            raise OverBudget(TIME_BUDGET)


@contextlib.contextmanager
def _on_thread(name: str, value: Any) -> Iterator[None]:
    """`value` as this thread's `name` within the block, the one before restored after it."""
    before = getattr(_current, name, None)
    setattr(_current, name, value)
    try:
        yield
    finally:
        setattr(_current, name, before)


@contextlib.contextmanager
def bounded(deadline: Deadline) -> Iterator[Deadline]:
    """Work on this thread within the block answers to `deadline` (`check`)."""
    with _on_thread("deadline", deadline):
        yield deadline


def yielding(waiting: Callable[[], bool]) -> contextlib.AbstractContextManager[None]:
    """Work on this thread within the block stops (`Preempted`) at the next check once
    `waiting()` says a more urgent job is queued."""
    return _on_thread("waiting", waiting)


def background(budget_ms: float = BACKGROUND_BUDGET_MS) -> contextlib.AbstractContextManager[None]:
    """Decisions on this thread within the block are background work that yields to served work:
    their budget is at least `budget_ms` (`allowed`)."""
    return _on_thread("background_ms", budget_ms)


def allowed(policy_ms: float) -> float:
    """A decision's budget on this thread: its policy's, or the background's when larger."""
    return max(policy_ms, getattr(_current, "background_ms", None) or 0)


def check() -> None:
    """Raise `Preempted` if more urgent work waits, `OverBudget` if the decision this thread
    works on is past its deadline."""
    waiting: Callable[[], bool] | None = getattr(_current, "waiting", None)
    if waiting is not None and waiting():
        raise Preempted
    deadline: Deadline | None = getattr(_current, "deadline", None)
    if deadline is not None:
        deadline.check()


def interruptible(model: Any) -> None:
    """Check the deadline before each layer of `model` (the blocks of its first `ModuleList`), so
    that one long pass cannot carry a decision far past its budget. Once per model."""
    import torch

    for module in model.modules():
        if isinstance(module, torch.nn.ModuleList):
            for layer in module:
                if layer not in _hooked:
                    layer.register_forward_pre_hook(lambda _module, _args: check())
                    _hooked.add(layer)
            return
