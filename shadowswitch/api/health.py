"""Liveness, readiness and Prometheus metrics."""

from __future__ import annotations

import anyio
from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from sqlalchemy import text

from shadowswitch.api.deps import StateDep

router = APIRouter()


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/readyz")
async def readyz(state: StateDep) -> JSONResponse:
    def ping() -> None:
        with state.decisions.engine.connect() as connection:
            connection.execute(text("SELECT 1"))

    checks = {"database": "ok", "models": "ok" if state.models_ready else "loading"}
    try:
        await anyio.to_thread.run_sync(ping)
    except Exception as exc:
        checks["database"] = f"unreachable: {type(exc).__name__}"
    ready = all(v == "ok" for v in checks.values())
    return JSONResponse({"ready": ready, **checks}, status_code=200 if ready else 503)


@router.get("/metrics")
async def metrics(state: StateDep) -> Response:
    state.metrics.refresh_rollouts(state.live.rows.values())
    return Response(generate_latest(state.metrics.registry), media_type=CONTENT_TYPE_LATEST)
