"""Policies reload live: a new set is validated, its rollouts synced (audited), then swapped in.

A reload is refused as a whole, and the old set keeps serving, when a file is invalid (PolicyError
with `file:line` problems) or the database cannot take the rollout changes. Otherwise, with one set
shared by the pipeline, feedback, the breaker and the rollout view, the swap is one in-place step on
the event loop: a request sees the old set or the new one, never a mix.

Task types whose file is gone stop being classified (their traffic goes to the default upstream,
unclassified); their decisions, rollout row and audit log stay, and a file that brings one back
resumes from that row, as at a restart. Local models a new policy names load in the background;
until then its task type answers generatively. Models no policy names any more stay loaded.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from sqlalchemy.exc import SQLAlchemyError

from shadowswitch.engines.engine_set import EngineSet
from shadowswitch.errors import PolicyError, ServiceUnavailable, ShadowswitchError
from shadowswitch.policy import PolicySet, load_policies
from shadowswitch.policy.diff import PolicyChanges, diff
from shadowswitch.policy.models import ModelSource
from shadowswitch.proxy.pipeline import Pipeline
from shadowswitch.rollouts.store.live import LiveRollouts
from shadowswitch.rollouts.store.repository import RolloutRepository
from shadowswitch.store.tables import AuditEvent

log = logging.getLogger(__name__)


@dataclass
class Reloaded:
    task_types: list[str]
    changes: PolicyChanges
    audit: list[AuditEvent]  # rollouts the policy files changed (or seeded), as at start
    loading: list[str]  # local models now loading in the background


class PolicyReloader:
    def __init__(
        self,
        directory: Path,
        policies: PolicySet,
        rollouts: RolloutRepository,
        live: LiveRollouts,
        pipeline: Pipeline,
    ):
        self.directory = directory
        self.policies = policies  # the set everything holds; swapped in place
        self.rollouts = rollouts
        self.live = live
        self.pipeline = pipeline
        self._lock = asyncio.Lock()  # one reload at a time (SIGHUP and the API may race)
        self._models_lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()

    async def reload(self, actor: str) -> Reloaded:
        """Load, validate and apply the policy directory; raise PolicyError or ServiceUnavailable."""
        async with self._lock:
            try:
                new = await anyio.to_thread.run_sync(load_policies, self.directory)
                events = await self._sync(new)
            except (PolicyError, ServiceUnavailable) as exc:
                log.error("policy reload by %s refused; the old set keeps serving:\n%s", actor, exc.message)
                raise
            changes = diff(self.policies, new)
            self.policies.replace_with(new)
            loading = [str(source) for source in self.load_models()]
        log.info(
            "policies reloaded by %s from %s: %d task types (%s); %d rollout change(s) audited%s",
            actor,
            self.directory,
            len(new.policies),
            changes.summary(),
            len(events),
            f"; loading local models {', '.join(loading)}" if loading else "",
        )
        return Reloaded(sorted(new.policies), changes, events, loading)

    async def _sync(self, new: PolicySet) -> list[AuditEvent]:
        """Rollouts the files set go through the same audited step as at start, before the swap."""
        try:
            events = await anyio.to_thread.run_sync(self.rollouts.sync_policies, new.policies)
        except SQLAlchemyError as exc:
            raise ServiceUnavailable(
                f"database unreachable ({type(exc).__name__}): policies not reloaded; try again"
            ) from None
        try:
            await self.live.refresh()  # this replica routes by the synced rows at once
        except SQLAlchemyError as exc:
            log.warning("policy reload: rollout view not refreshed (%s); the refresh loop will", exc)
        return events

    def reload_soon(self, actor: str) -> None:
        """Reload in the background (SIGHUP); the outcome is logged."""
        self._spawn(self._reload_logged(actor))

    async def _reload_logged(self, actor: str) -> None:
        with contextlib.suppress(ShadowswitchError):  # refused: already logged by reload()
            await self.reload(actor)

    def load_models(self) -> list[ModelSource]:
        """Start loading the local models the policies name that are not loaded yet."""
        local = self.pipeline.local
        if not isinstance(local, EngineSet) or local.build is None:
            return []  # generative only, still loading at start, or an engine that serves any model
        wanted = local.missing(self._models())
        if wanted:
            self._spawn(self._load(local))
        return wanted

    async def _load(self, local: EngineSet) -> None:
        from shadowswitch.engines.local.runtime.process import freeze_heap

        async with self._models_lock:  # reloads in a row: each model loads once
            for source in local.missing(self._models()):
                # a bad model must not stop the proxy: its task types stay generative (logged)
                if await anyio.to_thread.run_sync(local.build_now, source):
                    freeze_heap()

    def _models(self) -> set[ModelSource]:
        return {policy.engine.source for policy in self.policies.policies.values()}

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
