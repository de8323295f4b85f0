"""Learning off the request path: one daemon thread at the lowest CPU priority, now and then.

Each round looks at every task type whose policy says `engine.learn` and runs `challenger.learn`
once it has gathered `MIN_HOLDOUT` pairs more than at its last attempt (a run costs about a second
per thousand pairs, in numpy, never the models). One trainer per task type across replicas and the
CLI: a run holds the task type's trainer lock (`store.locks`), a replica that does not get it skips
the round, and one that gets it after another's run finds no new pairs since that run (the audit
says who judged what, when) and skips too. `shadowswitch learn --follow` runs the same rounds in a
process of its own.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from shadowswitch.learning.challenger import MIN_HOLDOUT, learn
from shadowswitch.policy.models import Engine as EnginePolicy
from shadowswitch.policy.models import PolicySet
from shadowswitch.store.exemplars import ExemplarStore
from shadowswitch.store.locks import try_lock

log = logging.getLogger(__name__)
LOWEST = 19  # nice value of the learning thread (Linux: per thread)
LOCKED = "locked"  # another trainer holds the task type's lock: this round skipped it
ALREADY_JUDGED = "already_judged"  # another trainer judged these pairs: nothing new to learn from


def trainer_name() -> str:
    """Who trains, as the audit and the logs say it: `learner:<host>:<pid>`."""
    return f"learner:{socket.gethostname()}:{os.getpid()}"


@dataclass(frozen=True)
class Run:
    """One learning run of the thread: when (monotonic clock), how long, what came of it."""

    task_type: str
    started: float
    seconds: float
    status: str
    version: int | None = None  # the version it promoted


def describe(run: Run) -> str:
    if run.version is not None:
        return f"{run.status} version {run.version}"
    if run.status == LOCKED:
        return "skipped: another trainer holds its lock"
    if run.status == ALREADY_JUDGED:
        return "skipped: no new pairs since the last judged run"
    return run.status


class BackgroundLearner:
    def __init__(
        self,
        store: ExemplarStore,
        policies: PolicySet,
        interval_s: float,
        on_change: Callable[[str], None] | None = None,
        on_run: Callable[[Run], None] | None = None,
    ):
        self.store = store
        self.policies = policies
        self.interval_s = interval_s
        self.on_change = on_change
        self.on_run = on_run  # every run or skip, as it ends (metrics, `learn --follow`'s lines)
        self.actor = trainer_name()
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
        """A round now rather than at the end of the interval, looking at every task type (the
        lock and the audit still keep it from learning what another trainer has judged)."""
        self._seen.clear()
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

    def follow(self, before: Callable[[], None] | None = None) -> None:
        """Rounds on the calling thread, the first at once, until `stop()` (`learn --follow`);
        `before` runs ahead of each (re-reading the policies)."""
        while not self._stop.is_set():
            if before:
                before()
            self.round()
            self._wake.wait(self.interval_s)
            self._wake.clear()

    def round(self) -> None:
        for task, policy in self.policies.policies.items():
            if self._stop.is_set():
                return
            if not policy.engine.learn or policy.engine.candidates != "tools":
                continue
            try:
                pairs = self.store.count(task)["usable"]
                if pairs - self._seen.get(task, 0) < MIN_HOLDOUT:
                    continue
                result = self._locked_run(task, policy.engine, pairs)
            except SQLAlchemyError:
                log.exception("learning: round failed for task type %s", task)
                continue
            if result.get("status") == "promoted" and self.on_change:
                self.on_change(task)

    def _locked_run(self, task: str, engine: EnginePolicy, pairs: int) -> dict[str, Any]:
        started = time.monotonic()
        with try_lock(self.store.engine, f"learn:{task}") as held:
            if not held:
                result: dict[str, Any] = {"status": LOCKED}
            elif self.store.new_since_judged(task) < MIN_HOLDOUT:
                self._seen[task] = pairs
                result = {"status": ALREADY_JUDGED}
            else:
                self._seen[task] = pairs
                self.busy.set()
                try:
                    result = learn(self.store, task, engine, actor=self.actor)
                finally:
                    self.busy.clear()
        seconds = time.monotonic() - started
        run = Run(task, started, seconds, str(result.get("status")), result.get("version"))
        self.runs.append(run)
        if self.on_run:
            self.on_run(run)
        log.info("learning %s: %s by %s in %.1f s", task, describe(run), self.actor, run.seconds)
        return result
