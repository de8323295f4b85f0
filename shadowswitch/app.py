"""create_app(settings, ...): wire the stores, engines and routes; start and stop background work."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from typing import Any

import anyio
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import SQLAlchemyError
from starlette.exceptions import HTTPException

from shadowswitch.api import admin, chat, dashboard, health, report
from shadowswitch.api.deps import AppState
from shadowswitch.api.limits import BodyLimit
from shadowswitch.durations import parse_since
from shadowswitch.engines.base import LocalEngine
from shadowswitch.engines.engine_set import EngineSet
from shadowswitch.engines.generative import LiteLLMEngine
from shadowswitch.errors import ShadowswitchError
from shadowswitch.feedback import Feedback
from shadowswitch.metrics import Metrics
from shadowswitch.offline import stay_offline
from shadowswitch.outcomes import Outcomes
from shadowswitch.pipeline import Pipeline
from shadowswitch.policy import PolicySet, load_policies
from shadowswitch.redact import load_redactor
from shadowswitch.settings import Settings
from shadowswitch.store import db
from shadowswitch.store.breaker import BreakerStore
from shadowswitch.store.decisions import DecisionRecorder, DecisionStore
from shadowswitch.store.live import LiveRollouts
from shadowswitch.store.rollouts import RolloutStore
from shadowswitch.store.tables import utcnow

log = logging.getLogger(__name__)
LocalFactory = Callable[[], LocalEngine]


def create_app(
    settings: Settings,
    *,
    local_factory: LocalFactory | None = None,
    generative: LiteLLMEngine | None = None,
) -> FastAPI:
    """The proxy. `local_factory` builds the local engine (default: embedded models, loaded at start)."""
    stay_offline()
    policies = load_policies(settings.policies)  # raises PolicyError before anything starts
    engine = db.make_engine(settings.db_url)
    decisions = DecisionStore(engine)
    recorder = DecisionRecorder(decisions)
    rollout_store = RolloutStore(engine)
    breaker = BreakerStore(engine)
    live = LiveRollouts(rollout_store, policies, settings.rollout_refresh_s, breaker)
    metrics = Metrics()
    outcomes = Outcomes(Feedback(decisions, policies, recorder), breaker, live, policies, metrics)
    live.on_change = outcomes.report  # re-probes happen in the refresh loop
    pipeline = Pipeline(
        policies,
        generative or LiteLLMEngine(retries=settings.upstream_retries),
        recorder,
        live,
        outcomes=outcomes,
        metrics=metrics,
        prompt_cap=settings.prompt_cap_bytes if settings.store_prompts else None,
        redact=load_redactor(settings.redact),
    )
    state = AppState(
        settings, policies, pipeline, decisions, recorder, rollout_store, live, outcomes, metrics
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await anyio.to_thread.run_sync(db.upgrade, settings.db_url)
        await anyio.to_thread.run_sync(rollout_store.sync_policies, policies.policies)
        await live.refresh()
        await pipeline.generative.warm_up()
        recorder.start()
        live.start()
        loading = asyncio.create_task(_load_local(state, local_factory, settings))
        pruning = asyncio.create_task(_prune_every_hour(decisions, parse_since(settings.retention)))
        try:
            yield
        finally:
            loading.cancel()
            pruning.cancel()
            await pipeline.drain()
            await live.stop()
            await recorder.stop()
            engine.dispose()

    app = FastAPI(title="shadowswitch", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.shadowswitch = state
    for module in (chat, admin, report, health, dashboard):
        app.include_router(module.router)
    app.mount("/dashboard/static", StaticFiles(directory=dashboard.HERE / "static"), name="dashboard-static")
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    _install_error_handlers(app)
    return app


async def _prune_every_hour(decisions: DecisionStore, retention: timedelta) -> None:
    """Retention: decisions older than `settings.retention` go, hourly, off the event loop."""
    while True:
        try:
            removed = await anyio.to_thread.run_sync(decisions.prune, utcnow() - retention)
            if removed:
                log.info("retention: pruned %d decisions older than %s", removed, retention)
        except SQLAlchemyError:
            log.exception("retention: pruning failed; trying again in an hour")
        await asyncio.sleep(3600)


async def _load_local(state: AppState, factory: LocalFactory | None, settings: Settings) -> None:
    """Load the local models off the event loop; the proxy serves generatively meanwhile."""
    if factory is None and not settings.load_models:
        state.models_ready = True  # nothing to load: generative only, by configuration
        return
    try:
        build = factory or _embedded_factory(settings, state.policies)
        state.pipeline.local = await anyio.to_thread.run_sync(build)
        state.models_ready = True
        log.info("local engine ready")
    except Exception:
        log.exception("could not load the local engine; serving generatively only")


def _embedded_factory(settings: Settings, policies: PolicySet) -> LocalFactory:
    """Load one engine per model the policies name (every policy may be switched on at run time)."""

    def build() -> LocalEngine:
        from shadowswitch.engines.local import Knowledge, configure_torch, create_engine, load_calibration

        configure_torch()  # process-wide, once for every engine
        prior = load_calibration(settings.calibration)
        knowledge = Knowledge.load(settings.knowledge)
        specs = {p.engine.model for p in policies.policies.values()}
        return EngineSet.load(specs, lambda spec: create_engine(spec, settings.model_cache, prior, knowledge))

    return build


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ShadowswitchError)
    async def on_error(_request: Request, exc: ShadowswitchError) -> JSONResponse:
        return JSONResponse(exc.body(), status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def on_invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        first: dict[str, Any] = exc.errors()[0] if exc.errors() else {}
        param = ".".join(str(p) for p in first.get("loc", []))
        body = {
            "error": {
                "message": f"{param}: {first.get('msg', 'invalid request')}",
                "type": "invalid_request_error",
                "param": param,
                "code": None,
            }
        }
        return JSONResponse(body, status_code=422)

    @app.exception_handler(HTTPException)
    async def on_http(_request: Request, exc: HTTPException) -> JSONResponse:
        kind = "not_found_error" if exc.status_code == 404 else "invalid_request_error"
        body = {"error": {"message": str(exc.detail), "type": kind, "param": None, "code": None}}
        return JSONResponse(body, status_code=exc.status_code)

    @app.exception_handler(Exception)
    async def on_unexpected(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error")
        body = {
            "error": {
                "message": f"internal error: {type(exc).__name__}",
                "type": "server_error",
                "param": None,
                "code": None,
            }
        }
        return JSONResponse(body, status_code=500)
