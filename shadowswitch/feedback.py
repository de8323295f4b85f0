"""Success and failure of decisions: explicit feedback, and tool results in the next request."""

from __future__ import annotations

import re
from typing import Any

import anyio

from shadowswitch.classify import message_text
from shadowswitch.policy.models import Policy, PolicySet
from shadowswitch.store.decisions import DecisionStore
from shadowswitch.store.tables import Decision


class Feedback:
    def __init__(self, store: DecisionStore, policies: PolicySet):
        self.store = store
        self.policies = policies

    async def explicit(self, decision_id: str, success: bool, reason: str | None) -> Decision | None:
        fields = {"success": success, "feedback_reason": reason or ("ok" if success else "failed")}
        return await anyio.to_thread.run_sync(lambda: self.store.update(decision_id, **fields))

    async def observe_request(self, request: dict[str, Any], policy: Policy | None) -> None:
        """A `role: tool` message answering a call we issued says whether that decision worked."""
        results = tool_results(request)
        if not results:
            return
        rows = await anyio.to_thread.run_sync(self.store.by_tool_calls, list(results))
        for row in rows:
            if row.success is not None:
                continue  # already judged (explicit feedback wins)
            owner = self.policies.policies.get(row.task_type) or policy
            regex = owner.feedback.tool_error_regex if owner else r"(?i)\berror\b"
            failed = [c for c, text in results.items() if re.search(regex, text)]
            fields = {
                "success": not failed,
                "feedback_reason": f"tool result matched error pattern: {results[failed[0]][:200]}"
                if failed
                else "tool result ok",
            }
            await anyio.to_thread.run_sync(lambda r=row, f=fields: self.store.update(r.id, **f))

    async def local_outcome(self, policy: Policy, decision_id: str, event: str) -> None:
        """Local-path events go to the breaker (see breaker.py once wired)."""


def tool_results(request: dict[str, Any]) -> dict[str, str]:
    """tool_call_id → result text, for the tool messages after the last assistant turn."""
    results: dict[str, str] = {}
    for message in request.get("messages") or []:
        if not isinstance(message, dict):
            continue
        if message.get("role") == "assistant":
            results = {}
        elif message.get("role") == "tool" and isinstance(message.get("tool_call_id"), str):
            results[message["tool_call_id"]] = message_text(message)
    return results
