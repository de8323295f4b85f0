"""GET /v1/shadowswitch/report: the same JSON as `shadowswitch report --json`."""

from __future__ import annotations

import anyio
from fastapi import APIRouter
from fastapi.responses import JSONResponse

from shadowswitch.analysis.report import build_report, rollout_modes
from shadowswitch.api.deps import READER, StateDep
from shadowswitch.api.learning import learning_status
from shadowswitch.api.report_body import Report
from shadowswitch.durations import parse_since
from shadowswitch.errors import BadRequest
from shadowswitch.store.tables import utcnow

router = APIRouter(prefix="/v1/shadowswitch")


# json.dumps writes the body, as before it had a model: its number format (1e-05, not 0.00001);
# unset: a task type's `learning` is absent when the proxy does not learn it
@router.get("/report", dependencies=READER, response_class=JSONResponse, response_model_exclude_unset=True)
async def report(state: StateDep, task: str | None = None, since: str = "24h") -> Report:
    try:
        window = parse_since(since)
    except ValueError as exc:
        raise BadRequest(str(exc), param="since") from None
    await state.recorder.flush()
    until = utcnow()
    rows = await anyio.to_thread.run_sync(state.decisions.since, until - window, task or None)
    rollouts = await anyio.to_thread.run_sync(state.rollouts.list)
    ramps = await anyio.to_thread.run_sync(state.rollouts.statuses, rollouts)
    built = build_report(rows, until - window, until, rollout_modes(rollouts), ramps)
    for entry in built["task_types"]:  # per-task-type learning, as GET /learning/{task} shows it
        if entry.get("task_type") in state.policies.policies and state.learning is not None:
            entry["learning"] = (await learning_status(state, entry["task_type"])).model_dump(mode="json")
    return Report.model_validate(built)
