"""`shadowswitch learn --follow`: the trainer as a process of its own, for a deployment of several
replicas that all run with `SHADOWSWITCH_LEARN_INTERVAL_S=0` (the same rounds as their thread).
Imported only when asked for (`cli/learning.py`), so its imports stay off the CLI's start-up."""

from __future__ import annotations

import contextlib
import os
import signal
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import typer

from shadowswitch.cli.common import err, open_stores, settings_from
from shadowswitch.errors import PolicyError
from shadowswitch.learning.background import ALREADY_JUDGED, LOCKED, LOWEST, BackgroundLearner, Run, describe
from shadowswitch.policy import load_policies
from shadowswitch.store.exemplars import ExemplarStore


def follow(db: str | None, policies: Path | None, interval_s: float) -> None:
    directory = policies or settings_from().policies
    try:
        loaded = load_policies(directory)
    except PolicyError as exc:
        err.print(f"error: learn --follow needs the policies (which task types learn): {exc}")
        raise typer.Exit(2) from None
    rollouts, _ = open_stores(db)
    with contextlib.suppress(OSError):  # the lowest CPU priority, as the serving replicas' thread
        os.setpriority(os.PRIO_PROCESS, 0, LOWEST)

    def line(run: Run) -> None:
        now = datetime.now(UTC).strftime("%H:%M:%S")
        took = "" if run.status in (LOCKED, ALREADY_JUDGED) else f" in {run.seconds:.1f} s"
        say(f"{now} learning {run.task_type}: {describe(run)}{took}")

    learner = BackgroundLearner(ExemplarStore(rollouts.engine), loaded, interval_s, on_run=line)

    def reread() -> None:
        try:
            loaded.replace_with(load_policies(directory))
        except PolicyError as exc:  # the last good set goes on
            say(f"warning: policies not re-read, the last good ones apply: {exc}")

    def stop(_signal: int, _frame: Any) -> None:
        learner.stop()  # the run under way ends first: a promotion is one transaction anyway

    signal.signal(signal.SIGTERM, stop)
    learning = sorted(t for t, p in loaded.policies.items() if p.engine.learn)
    task_types = ", ".join(learning) or "no task type yet"
    say(f"{learner.actor}: learning {task_types} every {interval_s:g} s (Ctrl-C or SIGTERM stops)")
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C: the run under way is abandoned
        learner.follow(before=reread)
    say(f"{learner.actor}: stopped")


def say(text: str) -> None:
    """One progress line on stderr, unwrapped (a log collector reads it)."""
    err.print(text, highlight=False, soft_wrap=True, markup=False)
