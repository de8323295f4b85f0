"""The shadowswitch API: decisions, feedback, rollouts, their audit log, and policy reloads.

With admin tokens set, changes need an operator's and reading decisions, rollouts and the audit log
any role's; feedback comes from the agent key a decision was made under (or an operator).
"""

from __future__ import annotations

from typing import Any

import anyio
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from shadowswitch.access.gate import Caller
from shadowswitch.api.deps import READER, AdminDep, AppState, StateDep
from shadowswitch.api.responses import AuditEventOut, DecisionOut, ListedRollout, PolicyReload, RolloutOut
from shadowswitch.api.schemas import FeedbackRequest, RampCommand, RolloutChange, parse_json
from shadowswitch.errors import Forbidden, NotFound, PolicyError, Unprocessable
from shadowswitch.request import validated
from shadowswitch.store.tables import Rollout

router = APIRouter(prefix="/v1/shadowswitch")


# json.dumps writes the body, as before these had a model: its number format (1e-05, not 0.00001)
@router.get("/decisions/{decision_id}", dependencies=READER, response_class=JSONResponse)
async def get_decision(decision_id: str, state: StateDep) -> DecisionOut:
    await state.recorder.flush()
    row = await anyio.to_thread.run_sync(state.decisions.get, decision_id)
    if row is None:
        raise NotFound(f"no decision {decision_id!r}", param="decision_id")
    return DecisionOut.of(row)


@router.post("/feedback", response_class=JSONResponse)
async def feedback(request: Request, state: StateDep) -> DecisionOut:
    """From the agent key a decision was made under, or an operator; anyone while no keys are in force."""
    caller = await state.gate.agent(request.headers, admin_may=True)
    body = validated(FeedbackRequest, parse_json(await request.body(), 64 * 1024))
    await state.recorder.flush()
    if caller.admin is None or not caller.admin.may("operator"):
        await _check_owner(state, caller, body.decision_id)
    row = await state.outcomes.explicit(body.decision_id, body.success, body.reason)
    if row is None:
        raise NotFound(f"no decision {body.decision_id!r}", param="decision_id")
    return DecisionOut.of(row)


async def _check_owner(state: AppState, caller: Caller, decision_id: str) -> None:
    """403, before anything changes, for feedback on a decision made under another key (or none)."""
    if caller.admin is not None:
        raise Forbidden(f"{caller.admin.name!r} is a {caller.admin.role}: feedback needs the operator role")
    if caller.key is None:
        return  # no keys in force
    row = await anyio.to_thread.run_sync(state.decisions.get, decision_id)
    if row is not None and row.key_name != caller.key.name:
        raise Forbidden(f"decision {decision_id!r} was not made under key {caller.key.name!r}")


@router.get("/rollouts", dependencies=READER)
async def list_rollouts(state: StateDep) -> list[ListedRollout]:
    def read() -> list[ListedRollout]:
        return [_public(state, row) for row in state.rollouts.list()]

    return await anyio.to_thread.run_sync(read)


@router.get("/rollouts/{task}", dependencies=READER)
async def get_rollout(task: str, state: StateDep) -> ListedRollout:
    return await anyio.to_thread.run_sync(lambda: _public(state, state.rollouts.get(task)))


def _public(state: AppState, row: Rollout) -> ListedRollout:
    shown = RolloutOut.shown(state.rollouts, row)
    return ListedRollout(**dict(shown), configured=row.task_type in state.policies.policies)


@router.put("/rollouts/{task}")
async def set_rollout(task: str, request: Request, state: StateDep, actor: AdminDep) -> RolloutOut:
    change = validated(RolloutChange, parse_json(await request.body(), 64 * 1024))

    def apply() -> Rollout:
        return state.rollouts.set(
            task, actor=actor, mode=change.mode, percent=change.percent, reason=change.reason
        )

    row = await anyio.to_thread.run_sync(apply)
    state.live.patch(row)  # this replica at once; the others within a refresh
    return RolloutOut.of(row)


@router.post("/rollouts/{task}/ramp")
async def ramp(task: str, request: Request, state: StateDep, actor: AdminDep) -> RolloutOut:
    """start | pause | resume | abort the task type's ramp; 409 when the action does not apply."""
    body = validated(RampCommand, parse_json(await request.body(), 64 * 1024))

    def apply() -> tuple[Rollout, RolloutOut]:
        row = state.rollouts.command(task, body.action, actor, body.reason)
        return row, RolloutOut.shown(state.rollouts, row)

    row, shown = await anyio.to_thread.run_sync(apply)
    state.live.patch(row)
    return shown


@router.get("/audit", dependencies=READER)
async def audit(state: StateDep, task: str | None = None, limit: int = 50) -> list[AuditEventOut]:
    events = await anyio.to_thread.run_sync(state.rollouts.audit, task, min(max(limit, 1), 1000))
    return [AuditEventOut.of(e) for e in events]


@router.post("/policies/reload")
async def reload_policies(state: StateDep, actor: AdminDep) -> PolicyReload:
    """Reload the policy directory; invalid → 422 listing `file:line` problems, the old set serving."""
    try:
        done = await state.reloader.reload(actor)
    except PolicyError as exc:
        raise PoliciesRefused(exc.problems) from None
    return PolicyReload.of(done)


class PoliciesRefused(Unprocessable):
    """An invalid policy set: the message lists every problem; `problems` has them one by one."""

    def __init__(self, problems: list[str]):
        message = "invalid policies, not reloaded (the old set keeps serving):\n" + "\n".join(problems)
        super().__init__(message, code="invalid_policies")
        self.problems = problems

    def body(self) -> dict[str, Any]:
        body = super().body()
        body["error"]["problems"] = self.problems
        return body
