"""The pipeline's `OutcomeSink`: verdicts on local-path decisions feed the breaker.

Local events come from the pipeline (valid, pending, invalid, error, abstain,
disagree); verdicts come from feedback, explicit or in the next request's tool
results. Only decisions the local path served count. What counts as a success
or a failure is decided in `shadowswitch.rollouts.breaker`.

While the database is away (or slower than `timeout_s`), events are held in memory, in order,
and the pure state machine runs on this replica's view, so that the local path still reverts
here when failures pile up; the held events are written, in order, when the database is back
(before the view is next refreshed from it).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio
from sqlalchemy.exc import SQLAlchemyError

from shadowswitch.learning.recorder import Learning
from shadowswitch.policy.models import Breaker, Policy, PolicySet
from shadowswitch.request import ChatView
from shadowswitch.rollouts.breaker import counts_as
from shadowswitch.rollouts.feedback import Feedback
from shadowswitch.rollouts.store.live import LiveRollouts
from shadowswitch.rollouts.store.repository import Change, RolloutRepository, Written
from shadowswitch.rollouts.store.rows import aggregate, as_row
from shadowswitch.states import BreakerTransition, Circuit, DecisionPath
from shadowswitch.store.tables import Decision, utcnow

if TYPE_CHECKING:
    from shadowswitch.server.metrics import Metrics

log = logging.getLogger(__name__)
MAX_HELD = 100_000  # breaker events held in memory during an outage; beyond, the oldest go


@dataclass(frozen=True)
class Held:
    """A breaker event not yet written: the database was away."""

    task_type: str
    config: Breaker
    decision_id: str
    event: str


class Outcomes:
    def __init__(
        self,
        feedback: Feedback,
        rollouts: RolloutRepository,
        live: LiveRollouts,
        policies: PolicySet,
        metrics: Metrics | None = None,
        timeout_s: float = 5.0,
        learning: Learning | None = None,
    ):
        self.feedback = feedback
        self.learning = learning  # negative feedback excludes the decision's exemplar
        self.rollouts = rollouts
        self.live = live
        self.policies = policies
        self.metrics = metrics
        self.timeout_s = timeout_s
        self.held: deque[Held] = deque(maxlen=MAX_HELD)
        self._held_since: float | None = None
        self._replayed: list[Written | None] = []  # written, not yet shown in the view
        self._given_up = threading.Event()  # the last write given up on has returned (set: none)
        self._given_up.set()

    async def local_outcome(self, policy: Policy, decision_id: str, event: str) -> None:
        """An event of the local path on one decision (see breaker.counts_as for what counts)."""
        await self._count(policy, decision_id, event)

    async def observe_request(self, request: ChatView, policy: Policy | None) -> None:
        """Tool results in a request judge the decisions that issued those calls."""
        try:
            judged = await self.feedback.observe_request(request, policy)
        except SQLAlchemyError as exc:  # the database is away: these tool results judge nothing
            log.warning("feedback: could not look up the decisions of tool results: %s", type(exc).__name__)
            return
        for row in judged:
            await self._judged(row)

    async def explicit(self, decision_id: str, success: bool, reason: str | None) -> Decision | None:
        """POST /feedback: store the outcome, then count it. None: no such decision."""
        row = await self.feedback.explicit(decision_id, success, reason)
        if row is not None:
            await self._judged(row)
        return row

    async def _judged(self, row: Decision) -> None:
        if row.success is False and self.learning is not None:
            await self.learning.exclude(row.task_type, row.id)
        policy = self.policies.policies.get(row.task_type)
        if row.path == DecisionPath.LOCAL and policy is not None and row.success is not None:
            await self._count(policy, row.id, "positive" if row.success else "negative")

    async def _count(self, policy: Policy, decision_id: str, event: str) -> None:
        counted = counts_as(event, policy.breaker)
        if counted is None or (counted and self._nothing_to_reset(policy.task_type)):
            return
        held = Held(policy.task_type, policy.breaker, decision_id, event)
        if self.held:  # the database was away: keep the order, behind the events held before
            self._hold(held)
            return
        try:
            with anyio.fail_after(self.timeout_s):
                written = await self._record(held)
        except (SQLAlchemyError, TimeoutError) as exc:
            log.warning(
                "breaker: database unavailable (%s); counting in this replica, written when it is back",
                type(exc).__name__,
            )
            self._hold(held)
            return
        self.live.apply(written)  # this replica's next request already sees the new state

    async def _record(self, held: Held) -> Written | None:
        """One step under the row lock; a step given up on by a timeout may still commit, and is
        then held and written again: a failure already in the streak, or one after a trip, does
        not count twice (breaker.on_failure)."""
        if not self._given_up.is_set():  # a slow database still holds the last one given up on
            raise TimeoutError("an earlier breaker write is still waiting for the database")
        done = threading.Event()

        def step() -> Written | None:
            try:
                return self.rollouts.record(held.task_type, held.config, held.decision_id, held.event)
            finally:
                done.set()

        try:
            return await anyio.to_thread.run_sync(step, abandon_on_cancel=True)
        except BaseException:  # given up on (timeout) or failed: at most one thread left waiting
            self._given_up = done
            raise

    def _hold(self, held: Held) -> None:
        """Count here, on a copy of this replica's row: the local path reverts here at the threshold."""
        if not self.held:
            self._held_since = time.monotonic()
        self.held.append(held)
        self._gauge()
        row = self.live.rows.get(held.task_type)
        if row is None:
            return
        before = aggregate(row)
        changed = before.record(held.config, held.decision_id, held.event, utcnow())
        if changed.rollout == before:
            return
        self.live.patch(as_row(changed.rollout))  # this replica's view only: not written
        trip = next((e for e in changed.events if e.kind == BreakerTransition.TRIP), None)
        if trip is not None:
            log.warning(
                "breaker tripped in this replica while the database is away: task type %s answers "
                "generatively here; %s (written, and applied on every replica, when the database is back)",
                held.task_type,
                trip.reason,
            )

    async def replay(self) -> None:
        """Write the held events, in order (raises while the database is still away; they stay)."""
        while self.held:  # events held meanwhile join the end
            with anyio.fail_after(self.timeout_s):
                self._replayed.append(await self._record(self.held[0]))
            self.held.popleft()
            self._gauge()
        if not self._replayed:
            return
        done, self._replayed = self._replayed, []
        for written in done:  # patched only now: a half-replayed view could route locally again
            self.live.apply(written)
        away = time.monotonic() - (self._held_since or time.monotonic())
        log.warning("breaker: wrote %d events counted while the database was away (%.1f s)", len(done), away)

    def _gauge(self) -> None:
        if self.metrics:
            self.metrics.breaker_held.set(len(self.held))

    def _nothing_to_reset(self, task_type: str) -> bool:
        """A success on a closed breaker with no failures counted changes nothing: skip the database.

        The view may be up to one refresh old; a failure another replica counted in that time
        is then not reset by this success — the next success resets it.
        """
        row = self.live.rows.get(task_type)
        return row is None or (row.breaker_state == Circuit.CLOSED and row.consecutive_failures == 0)

    def report(self, change: Change) -> None:
        """Count and log a transition this replica made (each happens on exactly one replica)."""
        if self.metrics:
            self.metrics.breaker_events.labels(change.task_type, change.kind).inc()
        if change.kind == "trip":
            log.warning(trip_message(change))
        else:
            log.info("breaker %s for task type %s: %s", change.kind, change.task_type, change.reason)


def trip_message(change: Change) -> str:
    """One line that says what happened, why, on which decisions, and what to do."""
    task, wait = change.task_type, change.reprobe_wait_s
    after = (
        f"or wait for the automatic re-probe in {wait:g} s"
        if wait
        else "it stays generative until then (reprobe_after_s is 0)"
    )
    return (
        f"breaker tripped: task type {task} now answers generatively on every replica; "
        f"reason: {change.reason}; decisions: {', '.join(change.decision_ids)}. "
        f"Fix the cause, then run `shadowswitch rollout set {task} --percent {change.percent:g}`, {after}."
    )
