"""What every route may depend on: the app's state, and the admin check."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

from fastapi import Depends, Request

from shadowswitch.access.gate import Caller, Gate, bearer, challenge
from shadowswitch.access.roles import AdminToken, match_admin
from shadowswitch.errors import Forbidden
from shadowswitch.learning.background import BackgroundLearner
from shadowswitch.learning.recorder import Learning
from shadowswitch.policy.models import PolicySet
from shadowswitch.proxy.pipeline import Pipeline
from shadowswitch.rollouts.outcomes import Outcomes
from shadowswitch.rollouts.store.live import LiveRollouts
from shadowswitch.rollouts.store.repository import RolloutRepository
from shadowswitch.store.decisions import DecisionStore
from shadowswitch.store.recorder import DecisionRecorder

if TYPE_CHECKING:
    from shadowswitch.server.metrics import Metrics
    from shadowswitch.server.reload import PolicyReloader
    from shadowswitch.server.settings import Settings


@dataclass
class AppState:
    settings: Settings
    policies: PolicySet
    pipeline: Pipeline
    decisions: DecisionStore
    recorder: DecisionRecorder
    rollouts: RolloutRepository  # the one writer of rollouts and their audit log
    live: LiveRollouts
    outcomes: Outcomes  # feedback and the breaker
    metrics: Metrics
    reloader: PolicyReloader  # swaps `policies` in place: every holder sees the new set
    gate: Gate  # agent keys and their limits
    admins: tuple[AdminToken, ...]  # every admin token with its role
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
    """The actor name of a valid `operator` token (changes: rollouts, ramps, policies, keys)."""
    if not state.admins:
        raise Forbidden("admin API is disabled: set SHADOWSWITCH_ADMIN_TOKEN to enable it")
    admin = _admin(request, state.admins)
    if not admin.may("operator"):
        raise Forbidden(f"{admin.name!r} is a {admin.role}: changes need the operator role")
    return admin.actor


async def require_reader(request: Request, state: StateDep) -> None:
    """Decisions, rollouts, audit, keys and reports: open without admin tokens, any role with them."""
    if state.admins:
        _admin(request, state.admins)


def _admin(request: Request, admins: tuple[AdminToken, ...]) -> AdminToken:
    given = bearer(request.headers)
    if not given:
        raise challenge("missing bearer token", code=None)
    admin = match_admin(given, admins)
    if admin is None:
        raise challenge("invalid admin token", code=None)
    return admin


async def require_agent(request: Request, state: StateDep) -> Caller:
    """The agent's key (401 without a valid one while keys are in force), counted against its limits."""
    caller = await state.gate.agent(request.headers)
    await state.gate.admit(caller)
    return caller


AdminDep = Annotated[str, Depends(require_admin)]
READER = [Depends(require_reader)]  # for routes that read: `dependencies=READER`
AgentDep = Annotated[Caller, Depends(require_agent)]
