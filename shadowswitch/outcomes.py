"""The pipeline's `OutcomeSink`: verdicts on local-path decisions feed the breaker.

Local events come from the pipeline (valid, pending, invalid, error, abstain,
disagree); verdicts come from feedback, explicit or in the next request's tool
results. Only decisions the local path served count. What counts as a success
or a failure is decided in `shadowswitch.breaker`.
"""

from __future__ import annotations

import logging

import anyio
from sqlalchemy.exc import SQLAlchemyError

from shadowswitch.breaker import judge
from shadowswitch.feedback import Feedback
from shadowswitch.learning.recorder import Learning
from shadowswitch.metrics import Metrics
from shadowswitch.policy.models import Policy, PolicySet
from shadowswitch.request import ChatView
from shadowswitch.store.breaker import BreakerStore, Change
from shadowswitch.store.live import LiveRollouts
from shadowswitch.store.tables import Decision

log = logging.getLogger(__name__)


class Outcomes:
    def __init__(
        self,
        feedback: Feedback,
        breaker: BreakerStore,
        live: LiveRollouts,
        policies: PolicySet,
        metrics: Metrics | None = None,
        learning: Learning | None = None,
    ):
        self.feedback = feedback
        self.learning = learning  # negative feedback excludes the decision's exemplar
        self.breaker = breaker
        self.live = live
        self.policies = policies
        self.metrics = metrics

    async def local_outcome(self, policy: Policy, decision_id: str, event: str) -> None:
        """An event of the local path on one decision (see breaker.judge for what counts)."""
        await self._count(policy, decision_id, event)

    async def observe_request(self, request: ChatView, policy: Policy | None) -> None:
        """Tool results in a request judge the decisions that issued those calls."""
        for row in await self.feedback.observe_request(request, policy):
            await self._judged(row)

    async def explicit(self, decision_id: str, success: bool, reason: str | None) -> Decision | None:
        """POST /feedback: store the verdict, then count it. None: no such decision."""
        row = await self.feedback.explicit(decision_id, success, reason)
        if row is not None:
            await self._judged(row)
        return row

    async def _judged(self, row: Decision) -> None:
        if row.success is False and self.learning is not None:
            await self.learning.exclude(row.task_type, row.id)
        policy = self.policies.policies.get(row.task_type)
        if row.path == "local" and policy is not None and row.success is not None:
            await self._count(policy, row.id, "positive" if row.success else "negative")

    async def _count(self, policy: Policy, decision_id: str, event: str) -> None:
        verdict = judge(event, policy.breaker)
        if verdict is None or (verdict and self._nothing_to_reset(policy.task_type)):
            return
        task, config = policy.task_type, policy.breaker
        try:
            written = await anyio.to_thread.run_sync(self.breaker.record, task, config, decision_id, event)
        except SQLAlchemyError:
            log.exception("breaker: could not count %s on decision %s of %s", event, decision_id, task)
            return
        self.live.apply(written)  # this replica's next request already sees the new state

    def _nothing_to_reset(self, task_type: str) -> bool:
        """A success on a closed breaker with no failures counted changes nothing: skip the database.

        The view may be up to one refresh old; a failure another replica counted in that time
        is then not reset by this success — the next success resets it.
        """
        row = self.live.rows.get(task_type)
        return row is None or (row.breaker_state == "closed" and row.consecutive_failures == 0)

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
