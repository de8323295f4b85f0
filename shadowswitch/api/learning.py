"""GET /v1/shadowswitch/learning/{task}: what per-task-type learning has collected and serves."""

from __future__ import annotations

from typing import Any

import anyio
from fastapi import APIRouter

from shadowswitch.api.deps import READER, AppState, StateDep
from shadowswitch.errors import NotFound
from shadowswitch.learning.challenger import status

router = APIRouter(prefix="/v1/shadowswitch")


@router.get("/learning/{task}", dependencies=READER)
async def learning(task: str, state: StateDep) -> dict[str, Any]:
    if task not in state.policies.policies:
        raise NotFound(f"no task type {task!r}", param="task")
    return await learning_status(state, task)


async def learning_status(state: AppState, task: str) -> dict[str, Any]:
    """Pairs collected, served version, agreement and coverage on recent pairs, and the curve."""
    assert state.learning is not None
    policy = state.policies.policies[task]
    return await anyio.to_thread.run_sync(status, state.learning.store, task, policy.engine)
