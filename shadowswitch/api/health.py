"""Liveness, readiness and Prometheus metrics.

/healthz: the process answers. /readyz: the database answers (within `db_timeout_s`) and the
models are loaded. While the database is away the proxy still serves and spools its records:
/readyz says so (503, and where records go) so that an operator sees it.
"""

from __future__ import annotations

import anyio
from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from shadowswitch.api.deps import StateDep
from shadowswitch.store.db import ping

router = APIRouter()


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/readyz")
async def readyz(state: StateDep) -> JSONResponse:
    checks = {"database": "ok", "models": "ok" if state.models_ready else "loading"}
    try:
        with anyio.fail_after(state.settings.db_timeout_s):
            await anyio.to_thread.run_sync(ping, state.decisions.engine, abandon_on_cancel=True)
    except Exception as exc:
        checks["database"] = f"unreachable: {type(exc).__name__}"
    ready = all(v == "ok" for v in checks.values())
    body = {"ready": ready, **checks, "decisions": state.recorder.status()}
    return JSONResponse(body, status_code=200 if ready else 503)


@router.get("/metrics")
async def metrics(state: StateDep) -> Response:
    state.metrics.refresh_rollouts(state.live.rows.values())
    return Response(generate_latest(state.metrics.registry), media_type=CONTENT_TYPE_LATEST)
