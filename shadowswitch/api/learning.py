"""Per-task-type learning: what it has collected and serves (GET), and a learning round now (POST)."""

from __future__ import annotations

import anyio
from fastapi import APIRouter

from shadowswitch.api.deps import READER, AdminDep, AppState, StateDep
from shadowswitch.api.responses import LearnerWoken, LearningStatus
from shadowswitch.errors import Conflict, NotFound
from shadowswitch.learning.challenger import status

router = APIRouter(prefix="/v1/shadowswitch")


@router.get("/learning/{task}", dependencies=READER)
async def learning(task: str, state: StateDep) -> LearningStatus:
    if task not in state.policies.policies:
        raise NotFound(f"no task type {task!r}", param="task")
    return await learning_status(state, task)


@router.post("/learning/wake")
async def wake(state: StateDep, actor: AdminDep) -> LearnerWoken:
    """This replica's learner runs a round now rather than at the end of its interval; with
    several replicas, only the one that gets a task type's trainer lock learns it."""
    if state.learner is None or state.settings.learn_interval_s <= 0:
        raise Conflict("this replica does not learn (SHADOWSWITCH_LEARN_INTERVAL_S=0)")
    state.learner.wake()
    return LearnerWoken(learner=state.learner.actor, by=actor)


async def learning_status(state: AppState, task: str) -> LearningStatus:
    """Pairs collected, served version, agreement and coverage on recent pairs, the curve, and
    every version's figures."""
    assert state.learning is not None
    policy = state.policies.policies[task]
    found = await anyio.to_thread.run_sync(status, state.learning.store, task, policy.engine)
    return LearningStatus.model_validate(found)
