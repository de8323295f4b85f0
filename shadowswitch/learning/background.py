"""Learning off the request path: one daemon thread at the lowest CPU priority, now and then.

Each round looks at every task type whose policy says `engine.learn` and runs `challenger.learn`
once it has gathered `MIN_HOLDOUT` pairs more than at its last attempt (a run costs about a second
per thousand pairs, in numpy, never the models). Replicas may run the same round: promotion is a
unique version per task type, so only one of them wins it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy.exc import SQLAlchemyError

from shadowswitch.learning.challenger import MIN_HOLDOUT, learn
from shadowswitch.policy.models import PolicySet
from shadowswitch.store.exemplars import ExemplarStore

log = logging.getLogger(__name__)
LOWEST = 19  # nice value of the learning thread (Linux: per thread)


@dataclass(frozen=True)
class Run:
    """One learning run of the thread: when (monotonic clock), how long, what came of it."""

    task_type: str
    started: float
    seconds: float
    status: str


class BackgroundLearner:
    def __init__(
        self,
        store: ExemplarStore,
        policies: PolicySet,
        interval_s: float,
        on_change: Callable[[str], None] | None = None,
    ):
        self.store = store
        self.policies = policies
        self.interval_s = interval_s
        self.on_change = on_change
        self._seen: dict[str, int] = {}
        self.runs: deque[Run] = deque(maxlen=50)  # the latest runs, newest last
        self.busy = threading.Event()  # set while a task type is being learned
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._run, name="shadowswitch-learner", daemon=True)

    def start(self) -> None:
        if self.interval_s > 0:
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()

    def wake(self) -> None:
        """A round now rather than at the end of the interval."""
        self._wake.set()

    def _run(self) -> None:
        with contextlib.suppress(OSError, AttributeError):  # not Linux: the default priority
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), LOWEST)
        while True:
            self._wake.wait(self.interval_s)
            self._wake.clear()
            if self._stop.is_set():
                return
            self.round()

    def round(self) -> None:
        for task, policy in self.policies.policies.items():
            if not policy.engine.learn or policy.engine.candidates != "tools":
                continue
            try:
                pairs = self.store.count(task)["usable"]
                if pairs - self._seen.get(task, 0) < MIN_HOLDOUT:
                    continue
                self._seen[task] = pairs
                started = time.monotonic()
                self.busy.set()
                try:
                    result = learn(self.store, task, policy.engine, actor="learner")
                finally:
                    self.busy.clear()
                self.runs.append(Run(task, started, time.monotonic() - started, str(result.get("status"))))
            except SQLAlchemyError:
                log.exception("learning: round failed for task type %s", task)
                continue
            log.info("learning %s: %s", task, result.get("status"))
            if result.get("status") == "promoted" and self.on_change:
                self.on_change(task)
