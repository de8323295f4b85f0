"""Learning off the request path: one daemon thread, now and then, whose runs go to a process of
their own at the lowest CPU priority.

A process, not the thread: a thread at the lowest priority that holds the GIL while the machine is
busy waits long for a core, and every request waits for it (priority inversion: seen as 0.9 s
stalls on a loaded 2-core machine). A process never holds the server's GIL, and the kernel's
priority then does what it says. An in-memory database (one process) learns on the thread.

Each round looks at every task type whose policy says `engine.learn` and runs `challenger.learn`
once it has gathered `MIN_HOLDOUT` pairs more than at its last attempt (a run costs about a second
per thousand pairs in numpy, and where the encoder is tuned, 25-35 CPU seconds per tuning, a few
per run). One trainer per task type across replicas and the
CLI: a run holds the task type's trainer lock (`store.locks`), a replica that does not get it skips
the round, and one that gets it after another's run finds no new pairs since that run (the audit
says who judged what, when) and skips too. `shadowswitch learn --follow` runs the same rounds in a
process of its own.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import socket
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from shadowswitch.engines.local.runtime.process import configure_torch
from shadowswitch.learning.challenger import MIN_HOLDOUT, learn
from shadowswitch.policy.models import Engine as EnginePolicy
from shadowswitch.policy.models import PolicySet
from shadowswitch.store import db
from shadowswitch.store.exemplars import ExemplarStore
from shadowswitch.store.locks import try_lock

log = logging.getLogger(__name__)
LOWEST = 19  # nice value of the learning thread (Linux: per thread)
LOCKED = "locked"  # another trainer holds the task type's lock: this round skipped it
ALREADY_JUDGED = "already_judged"  # another trainer judged these pairs: nothing new to learn from
FAILED = "failed"  # the run raised or its process died: logged, retried at the next round


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


def _learn_apart(url: str, cap: int, task: str, engine: EnginePolicy, actor: str, reply: Any) -> None:
    """A learning run in a process of its own (from the fork server: numpy and the store, and the
    sentence encoder only where it is tuned); its result, or the error's traceback, goes back
    through the pipe `reply`."""
    with contextlib.suppress(OSError, AttributeError):
        os.setpriority(os.PRIO_PROCESS, 0, LOWEST)
    configure_torch(1)  # the encoder's tuning (`tuning.py`): one core, the others stay the server's
    try:
        store = ExemplarStore(db.make_engine(url), cap)
        reply.send(("ok", learn(store, task, engine, actor=actor)))
    except Exception:  # the parent logs it: a child's traceback is not seen otherwise
        reply.send(("error", traceback.format_exc()))
    finally:
        reply.close()


def _forkserver() -> multiprocessing.context.ForkServerContext:
    """Runs fork from a server process that imported the learning code once, at the first run:
    a run starts in milliseconds, not the seconds a spawned interpreter takes to import numpy,
    scipy and the store (and never forks this process, whose threads hold locks)."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    return context


def _in_memory(store: ExemplarStore) -> bool:
    return store.engine.dialect.name == "sqlite" and (store.engine.url.database or "") in ("", ":memory:")


class BackgroundLearner:
    def __init__(
        self,
        store: ExemplarStore,
        policies: PolicySet,
        interval_s: float,
        on_change: Callable[[str], None] | None = None,
        on_run: Callable[[Run], None] | None = None,
        apart: bool = False,
    ):
        """`apart`: each run in a process of its own (the server); otherwise on the calling
        thread (`learn --follow`, a process of its own already)."""
        self.store = store
        self.apart = apart and not _in_memory(store)
        self._child: multiprocessing.process.BaseProcess | None = None
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
        child = self._child
        if child is not None and child.is_alive():
            child.terminate()  # its transaction is rolled back; the lock goes with the thread

    def wake(self) -> None:
        """A round now rather than at the end of the interval, looking at every task type (the
        lock and the audit still keep it from learning what another trainer has judged)."""
        self._seen.clear()
        self._wake.set()

    def _run(self) -> None:
        if not self.apart:
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
                    result = self._learn(task, engine)
                finally:
                    self.busy.clear()
        seconds = time.monotonic() - started
        run = Run(task, started, seconds, str(result.get("status")), result.get("version"))
        self.runs.append(run)
        if self.on_run:
            self.on_run(run)
        log.info("learning %s: %s by %s in %.1f s", task, describe(run), self.actor, run.seconds)
        return result

    def _learn(self, task: str, engine: EnginePolicy) -> dict[str, Any]:
        if not self.apart:
            return learn(self.store, task, engine, actor=self.actor)
        context = _forkserver()
        mine, theirs = context.Pipe(duplex=False)
        url = self.store.engine.url.render_as_string(hide_password=False)
        child = context.Process(
            target=_learn_apart,
            args=(url, self.store.cap, task, engine, self.actor, theirs),
            name=f"shadowswitch-learn-{task}",
            daemon=True,
        )
        self._child = child
        child.start()
        theirs.close()  # the child's end: recv() sees EOF when the child dies without a word
        try:
            kind, payload = mine.recv()
        except EOFError:
            kind, payload = "error", "the learning process died without a result"
        finally:
            mine.close()
            child.join()
            self._child = None
        if kind == "error" and child.exitcode:
            payload = f"{payload} (exit code {child.exitcode})"
        if kind == "error":
            log.error("learning %s failed:\n%s", task, payload)
            return {"status": FAILED}
        return dict(payload)
