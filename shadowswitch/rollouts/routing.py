"""Which path serves a request: sticky percentage buckets per task type, pure and deterministic."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from shadowswitch.request import ChatView
from shadowswitch.states import Circuit, RolloutMode, Route


@dataclass(frozen=True)
class RolloutView:
    """What the pipeline needs of a task type's live rollout state."""

    mode: str  # a RolloutMode
    percent: float
    breaker_state: str = Circuit.CLOSED
    reprobe_percent: float = 0.0

    @property
    def local_percent(self) -> float:
        """The share of keys served locally right now, the breaker taken into account."""
        if self.mode != RolloutMode.CANARY or self.breaker_state == Circuit.OPEN:
            return 0.0
        if self.breaker_state == Circuit.HALF_OPEN:
            return min(self.percent, self.reprobe_percent) if self.percent else 0.0
        return self.percent


def bucket(task_type: str, key: str) -> float:
    """A stable point in [0, 100) for (task type, key); the same everywhere, forever."""
    digest = hashlib.sha256(f"{task_type}\x00{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 * 100


def in_local_group(task_type: str, key: str, percent: float) -> bool:
    """Raising `percent` only adds keys: a key inside stays inside. At 0 % (mode off, shadow, a
    tripped breaker) no key is inside, and none is hashed."""
    return percent > 0 and bucket(task_type, key) < percent


def choose_route(task_type: str, key: str, view: RolloutView) -> Route:
    if view.mode == RolloutMode.SHADOW:
        return Route.SHADOW
    if in_local_group(task_type, key, view.local_percent):
        return Route.LOCAL
    return Route.GENERATIVE


def should_compare(decision_id: str, compare_percent: float) -> bool:
    """Sample local answers for a background generative comparison."""
    return bucket("compare", decision_id) < compare_percent


def conversation_key(request: ChatView) -> str:
    """Identity of a conversation: its opening (system prompt + first user turn)."""
    return hash_key(json.dumps(request.opening))


def sticky_key(
    request: ChatView, session: str | None, kind: str = "session", conversation: str | None = None
) -> str:
    """The key a request is bucketed by: the policy's choice, falling back sensibly.
    `conversation`: the request's `conversation_key`, when the caller already has it."""
    user = request.user
    order = {
        "session": (session, user),
        "user": (user, session),
        "conversation": (),
    }[kind]
    for value in order:
        if value:
            return value
    return conversation or conversation_key(request)


def hash_key(key: str) -> str:
    """What is stored instead of a raw key."""
    return hashlib.sha256(key.encode()).hexdigest()[:32]
