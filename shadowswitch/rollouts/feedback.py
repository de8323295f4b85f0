"""Success and failure of decisions: explicit feedback, and tool results in the next request.

Conversation identity for implicit feedback is the tool_call ids we issued: each is
random (`call_` + 24 hex digits, ours or the upstream's), recorded with its decision,
and only the conversation that received it can answer it with a `role: tool` message.
Matching by id needs no session header, `user` or stable history, and cannot judge a
decision of another conversation.
"""

from __future__ import annotations

import asyncio
import re
from collections import defaultdict
from functools import partial

import anyio

from shadowswitch.policy.models import Feedback as FeedbackPolicy
from shadowswitch.policy.models import Policy, PolicySet
from shadowswitch.request import ChatView
from shadowswitch.store.decisions import DecisionStore
from shadowswitch.store.recorder import DecisionRecorder
from shadowswitch.store.tables import Decision

LATE_RECORD_S = 0.25  # a decision recorded by another replica may reach the database this late


class Feedback:
    def __init__(self, store: DecisionStore, policies: PolicySet, recorder: DecisionRecorder | None = None):
        self.store = store
        self.policies = policies
        self.recorder = recorder

    async def explicit(self, decision_id: str, success: bool, reason: str | None) -> Decision | None:
        """Record an outcome from outside; it overrides any earlier one. None: no such decision."""
        fields = {"success": success, "feedback_reason": reason or ("ok" if success else "failed")}
        return await anyio.to_thread.run_sync(lambda: self.store.update(decision_id, **fields))

    async def observe_request(self, request: ChatView, policy: Policy | None) -> list[Decision]:
        """Judge the decisions whose tool calls this request answers; return those newly judged."""
        results = request.tool_results
        if not results:
            return []
        owners = await self._owners(list(results))
        judged = []
        for row, call_ids in owners.values():
            if row.success is not None:
                continue  # already judged (explicit feedback wins)
            regex = self._rules(row, policy).tool_error_regex
            failed = next((results[c] for c in call_ids if re.search(regex, results[c])), None)
            fields = {
                "success": failed is None,
                "feedback_reason": "tool result ok"
                if failed is None
                else f"tool result matched error pattern: {failed[:200]}",
            }
            updated = await anyio.to_thread.run_sync(partial(self.store.update, row.id, **fields))
            if updated is not None:
                judged.append(updated)
        return judged

    async def _owners(self, call_ids: list[str]) -> dict[str, tuple[Decision, list[str]]]:
        """decision id → (decision, the call ids of this request it issued)."""
        if self.recorder:
            await self.recorder.flush()  # the previous turn may still sit in our write queue
        owners = await anyio.to_thread.run_sync(self._lookup, call_ids)
        missing = [c for c in call_ids if not any(c in ids for _, ids in owners.values())]
        if missing:
            await asyncio.sleep(LATE_RECORD_S)
            owners.update(await anyio.to_thread.run_sync(self._lookup, missing))
        return owners

    def _lookup(self, call_ids: list[str]) -> dict[str, tuple[Decision, list[str]]]:
        found: dict[str, Decision] = {}
        calls: dict[str, list[str]] = defaultdict(list)
        for call_id in call_ids:  # one at a time: a request answers only a few calls
            for row in self.store.by_tool_calls([call_id]):
                found[row.id] = row
                calls[row.id].append(call_id)
        return {decision_id: (row, calls[decision_id]) for decision_id, row in found.items()}

    def _rules(self, row: Decision, policy: Policy | None) -> FeedbackPolicy:
        owner = self.policies.policies.get(row.task_type) or policy
        return owner.feedback if owner else FeedbackPolicy()
