"""One request's exchange with the pipeline: what comes in, its context, the reply and its headers.

The pipeline (`pipeline.py`) knows the order of the steps; these are the values that pass
between them, and where local outcomes go (`OutcomeSink`).
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from shadowswitch.access.keys import AgentKey
from shadowswitch.engines.base import Choice
from shadowswitch.policy.models import Action, Policy, Upstream
from shadowswitch.redact import Redactor, default_redactor, redact_strings
from shadowswitch.request import ChatView
from shadowswitch.states import Route
from shadowswitch.store.tables import Decision


class OutcomeSink(Protocol):
    """Where local-path outcomes and incoming tool results go (the breaker and feedback).

    Local events: valid, pending (valid tool calls, awaiting their result), invalid,
    error, abstain, disagree.
    """

    async def local_outcome(self, policy: Policy, decision_id: str, event: str) -> None: ...

    async def observe_request(self, request: ChatView, policy: Policy | None) -> None: ...


@dataclass
class Incoming:
    request: ChatView
    task_header: str | None = None
    session: str | None = None
    key: AgentKey | None = None  # the agent key it came with: its name goes on the decision
    provider_key: str | None = field(default=None, repr=False)  # for `upstream.auth: passthrough` only


@dataclass
class Reply:
    decision_id: str
    task_type: str
    path: str
    body: dict[str, Any] | None = None
    stream: AsyncIterator[bytes] | None = None

    @property
    def headers(self) -> dict[str, str]:
        return reply_headers(self.decision_id, self.task_type, self.path)


@dataclass
class Context:
    """One snapshot of everything a request's handling depends on, read once at the start."""

    request: ChatView
    task_type: str
    policy: Policy | None
    upstream: Upstream
    route: Route
    sticky: str  # the key the route was bucketed by
    decision: Decision
    started: float = field(default_factory=time.perf_counter)
    upstream_request: dict[str, Any] | None = None  # the request as the upstream should see it
    fill_action: Action | None = None  # chosen locally; the upstream writes its text
    recorded: bool = False
    abstained: Choice | None = None  # the local choice the generative path stood in for

    def elapsed_ms(self) -> float:
        return (time.perf_counter() - self.started) * 1000


def stored_prompt(request: ChatView, cap: int, redact: Redactor = default_redactor) -> str:
    """The request's messages as JSON, every string redacted, then cut to `cap` bytes (at a
    character boundary; redacting first, so a cut never leaves half a card number unmasked)."""
    text = json.dumps(redact_strings(list(request.messages), redact), ensure_ascii=False)
    return text.encode()[:cap].decode("utf-8", "ignore")


def reply_headers(decision_id: str, task_type: str, path: str) -> dict[str, str]:
    return {
        "X-Shadowswitch-Decision-Id": decision_id,
        "X-Shadowswitch-Task": task_type,
        "X-Shadowswitch-Path": path,
    }
