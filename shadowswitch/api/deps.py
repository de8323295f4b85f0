"""What every route may depend on: the app's state, and the admin check."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from shadowswitch.errors import Forbidden, Unauthorized
from shadowswitch.learning.background import BackgroundLearner
from shadowswitch.learning.recorder import Learning
from shadowswitch.metrics import Metrics
from shadowswitch.pipeline import Pipeline
from shadowswitch.policy.models import PolicySet
from shadowswitch.reload import PolicyReloader
from shadowswitch.rollouts.outcomes import Outcomes
from shadowswitch.rollouts.store.live import LiveRollouts
from shadowswitch.rollouts.store.rollouts import RolloutStore
from shadowswitch.settings import Settings
from shadowswitch.store.decisions import DecisionRecorder, DecisionStore


@dataclass
class AppState:
    settings: Settings
    policies: PolicySet
    pipeline: Pipeline
    decisions: DecisionStore
    recorder: DecisionRecorder
    rollouts: RolloutStore
    live: LiveRollouts
    outcomes: Outcomes  # feedback and the breaker
    metrics: Metrics
    reloader: PolicyReloader  # swaps `policies` in place: every holder sees the new set
    models_ready: bool = False
    learning: Learning | None = None
    learner: BackgroundLearner | None = None  # the learning thread: its latest runs


# The dependencies are `async def` though they never wait: FastAPI runs a plain `def` one on a
# worker thread: a thread hop per request, a few per cent of a pass-through call's CPU.


async def get_state(request: Request) -> AppState:
    state: AppState = request.app.state.shadowswitch
    return state


StateDep = Annotated[AppState, Depends(get_state)]


async def require_admin(request: Request, state: StateDep) -> str:
    """The actor name of a valid admin bearer token (compared in constant time)."""
    if not state.settings.admin_token:
        raise Forbidden("admin API is disabled: set SHADOWSWITCH_ADMIN_TOKEN to enable it")
    return _bearer(request, state.settings.admin_token, state.settings.admin_token_name)


async def require_reader(request: Request, state: StateDep) -> None:
    """Decisions, rollouts, audit and reports: open without an admin token, behind it with one."""
    if state.settings.admin_token:
        _bearer(request, state.settings.admin_token, state.settings.admin_token_name)


def _bearer(request: Request, token: str, name: str) -> str:
    given = request.headers.get("authorization", "")
    scheme, _, value = given.partition(" ")
    if scheme.lower() != "bearer" or not value:
        raise _challenge("missing bearer token")
    if not hmac.compare_digest(value.strip().encode(), token.encode()):
        raise _challenge("invalid admin token")
    return f"api:{name}"


def _challenge(message: str) -> Unauthorized:
    error = Unauthorized(message)
    error.headers["WWW-Authenticate"] = "Bearer"
    return error


AdminDep = Annotated[str, Depends(require_admin)]
READER = [Depends(require_reader)]  # for routes that read: `dependencies=READER`
