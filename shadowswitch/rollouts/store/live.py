"""An in-process view of every task type's rollout state, refreshed from the database in the background.

The request path reads this dict and never the database; every replica sees a change
within one refresh interval. The same loop moves breakers whose wait is over to
half-open, and running ramps whose evidence calls for a step (one replica wins the
row lock and audits it; the others see it done).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Awaitable, Callable

import anyio

from shadowswitch.policy.models import PolicySet
from shadowswitch.rollouts.routing import RolloutView
from shadowswitch.rollouts.store.repository import Change, RolloutRepository, Written
from shadowswitch.rollouts.store.rows import as_utc
from shadowswitch.states import Circuit, RampState, RolloutMode
from shadowswitch.store.tables import Rollout

log = logging.getLogger(__name__)
OnChange = Callable[[Change], None]


class LiveRollouts:
    def __init__(
        self,
        store: RolloutRepository,
        policies: PolicySet,
        interval_s: float = 0.5,
        on_change: OnChange | None = None,
        ramp_check_s: float = 2.0,
    ):
        self.store = store
        self.policies = policies
        self.interval_s = interval_s
        self.on_change = on_change
        self.rows: dict[str, Rollout] = {}
        self._epoch = 0  # bumped by every local patch
        self._patched: dict[str, int] = {}  # task type → epoch of its last local patch
        self._task: asyncio.Task[None] | None = None
        # e.g. breaker events counted while the database was away: applied before the view is
        # replaced by what the database says (raises while it is still away: the view stays)
        self.before_refresh: Callable[[], Awaitable[None]] | None = None
        self._failing_since: float | None = None  # the refresh has failed since (monotonic)
        store.certifies = self._certifies  # the ramp's evidence asks for a certificate
        self.ramp_check_s = ramp_check_s  # how often running ramps read their evidence
        self._ramps_checked = -math.inf
        self.ramp_passes = 0  # ramp checks done: what a test waits for, rather than for time

    def _certifies(self, task_type: str) -> bool:
        policy = self.policies.policies.get(task_type)
        return policy is not None and policy.engine.certify

    def view(self, task_type: str) -> RolloutView:
        row = self.rows.get(task_type)
        policy = self.policies.policies.get(task_type)
        reprobe = policy.breaker.reprobe_percent if policy else 0.0
        if row is None:
            if policy is None:
                return RolloutView(mode=RolloutMode.OFF, percent=0.0)
            return RolloutView(mode=policy.rollout.mode, percent=policy.rollout.percent)
        return RolloutView(row.mode, row.percent, row.breaker_state, reprobe)

    def patch(self, row: Rollout) -> None:
        """Take a row this process just committed, without waiting for the next refresh."""
        self._epoch += 1
        self._patched[row.task_type] = self._epoch
        self.rows[row.task_type] = row

    async def refresh(self) -> None:
        if self.before_refresh is not None:
            await self.before_refresh()
        started = self._epoch
        rows = {row.task_type: row for row in await anyio.to_thread.run_sync(self.store.list)}
        for task_type, epoch in self._patched.items():
            if epoch > started and task_type in self.rows:
                rows[task_type] = self.rows[task_type]  # read before our own newer write: keep ours
        self.rows = rows
        await self._advance_breakers()
        await self._advance_ramps()

    async def _advance_breakers(self) -> None:
        """Open breakers whose re-probe time has come go half-open."""
        now = self.store.clock()
        for row in list(self.rows.values()):
            reprobe_at = as_utc(row.reprobe_at)
            policy = self.policies.policies.get(row.task_type)
            if row.breaker_state != Circuit.OPEN or reprobe_at is None or reprobe_at > now or policy is None:
                continue
            written = await anyio.to_thread.run_sync(self.store.reprobe, row.task_type, policy.breaker)
            self.apply(written)

    async def _advance_ramps(self) -> None:
        """Running ramps move when their step's evidence says so (one replica wins each move)."""
        if time.monotonic() - self._ramps_checked < self.ramp_check_s:
            return
        self._ramps_checked = time.monotonic()
        for row in list(self.rows.values()):
            if row.ramp_state == RampState.RUNNING and row.breaker_state == Circuit.CLOSED:
                moved = await anyio.to_thread.run_sync(self.store.tick, row)
                if moved is not None:
                    self.patch(moved)
                    level = (
                        logging.INFO
                        if moved.ramp_state in (RampState.RUNNING, RampState.DONE)
                        else logging.WARNING
                    )
                    log.log(level, "ramp of task type %s: %s", moved.task_type, moved.ramp_note)
        self.ramp_passes += 1

    def apply(self, written: Written | None) -> None:
        """Patch the view with a committed breaker step and report its transition."""
        if written is None:
            return
        self.patch(written.row)
        if written.change and self.on_change:
            self.on_change(written.change)

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval_s)
            try:
                await self.refresh()
            except Exception as exc:  # keep serving the last known state while the DB is away
                self._refresh_failed(exc)
                continue
            if self._failing_since is not None:
                away = time.monotonic() - self._failing_since
                log.warning("rollout state refreshed from the database again after %.1f s", away)
                self._failing_since = None

    def _refresh_failed(self, exc: Exception) -> None:
        """Say it once per outage, not every interval."""
        if self._failing_since is None:
            self._failing_since = time.monotonic()
            first = (str(exc).strip().splitlines() or [""])[0][:200]
            log.warning(
                "could not refresh rollout state (%s: %s); routing from the last known state until it works",
                type(exc).__name__,
                first,
            )

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="rollout-refresh")

    async def stop(self) -> None:
        if self._task:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
