"""An in-process view of every task type's rollout state, refreshed from the database in the background.

The request path reads this dict and never the database; every replica sees a change
within one refresh interval.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import anyio

from shadowswitch.policy.models import PolicySet
from shadowswitch.rollout import RolloutView
from shadowswitch.store.rollouts import RolloutStore
from shadowswitch.store.tables import Rollout

log = logging.getLogger(__name__)


class LiveRollouts:
    def __init__(self, store: RolloutStore, policies: PolicySet, interval_s: float = 0.5):
        self.store = store
        self.policies = policies
        self.interval_s = interval_s
        self.rows: dict[str, Rollout] = {}
        self._task: asyncio.Task[None] | None = None

    def view(self, task_type: str) -> RolloutView:
        row = self.rows.get(task_type)
        policy = self.policies.policies.get(task_type)
        reprobe = policy.breaker.reprobe_percent if policy else 0.0
        if row is None:
            if policy is None:
                return RolloutView(mode="off", percent=0.0)
            return RolloutView(mode=policy.rollout.mode, percent=policy.rollout.percent)
        return RolloutView(row.mode, row.percent, row.breaker_state, reprobe)

    async def refresh(self) -> None:
        rows = await anyio.to_thread.run_sync(self.store.list)
        self.rows = {row.task_type: row for row in rows}

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval_s)
            try:
                await self.refresh()
            except Exception as exc:  # keep serving the last known state while the DB is away
                log.warning("could not refresh rollout state: %s", exc)

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="rollout-refresh")

    async def stop(self) -> None:
        if self._task:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
