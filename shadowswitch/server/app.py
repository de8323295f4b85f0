"""create_app(settings, ...): wire the stores, engines and routes; start and stop background work.

The one place that knows every part the app is made of and the order they start and stop in.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
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

from shadowswitch.access.gate import Gate
from shadowswitch.access.store import KeyStore, UsageStore
from shadowswitch.api import admin, chat, dashboard, health, keys, report
from shadowswitch.api import learning as learning_api
from shadowswitch.api.deps import AppState
from shadowswitch.api.limits import BodyLimit
from shadowswitch.durations import parse_since
from shadowswitch.engines.base import LocalEngine, ModelEngine
from shadowswitch.engines.engine_set import EngineSet
from shadowswitch.engines.generative import LiteLLMEngine
from shadowswitch.errors import ShadowswitchError
from shadowswitch.learning.background import BackgroundLearner
from shadowswitch.learning.recorder import Learning
from shadowswitch.learning.served import ServedMemories
from shadowswitch.policy import PolicySet, load_policies
from shadowswitch.proxy.pipeline import Pipeline
from shadowswitch.redact import load_redactor
from shadowswitch.rollouts.feedback import Feedback
from shadowswitch.rollouts.outcomes import Outcomes
from shadowswitch.rollouts.store.live import LiveRollouts
from shadowswitch.rollouts.store.repository import RolloutRepository
from shadowswitch.server.metrics import Metrics
from shadowswitch.server.offline import stay_offline
from shadowswitch.server.reload import PolicyReloader
from shadowswitch.server.services import Hooks, Services, Task
from shadowswitch.server.settings import Settings
from shadowswitch.store import db, notices
from shadowswitch.store.decisions import DecisionStore
from shadowswitch.store.exemplars import ExemplarStore
from shadowswitch.store.recorder import DecisionRecorder
from shadowswitch.store.spool import default_dir as default_spool_dir
from shadowswitch.store.tables import utcnow

log = logging.getLogger(__name__)
LocalFactory = Callable[[], LocalEngine | ModelEngine]


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
    metrics = Metrics()
    recorder = DecisionRecorder(
        decisions,
        spool_dir=(settings.spool_dir or default_spool_dir(settings.db_url))
        if settings.spool_max_bytes
        else None,
        spool_max_bytes=settings.spool_max_bytes,
        timeout_s=settings.db_timeout_s,
        metrics=metrics,
    )
    rollout_store = RolloutRepository(engine)
    live = LiveRollouts(
        rollout_store, policies, settings.rollout_refresh_s, ramp_check_s=settings.ramp_check_s
    )
    exemplars = ExemplarStore(engine, settings.max_exemplars)
    memories = ServedMemories(exemplars, lambda task, v: metrics.learned_version.labels(task).set(v))
    redact = load_redactor(settings.redact)  # stored prompts, and the words pairs keep
    learning = Learning(exemplars, memories, lambda t: metrics.certificates_withdrawn.labels(t).inc(), redact)
    learner = BackgroundLearner(
        exemplars,
        policies,
        settings.learn_interval_s,
        memories.invalidate,
        lambda run: metrics.learning_runs.labels(run.task_type, run.status).inc(),
        apart=True,
    )
    outcomes = Outcomes(
        Feedback(decisions, policies, recorder),
        rollout_store,
        live,
        policies,
        metrics,
        settings.db_timeout_s,
        learning,
    )
    live.on_change = outcomes.report  # re-probes happen in the refresh loop
    live.before_refresh = outcomes.replay  # breaker events held during an outage go first
    pipeline = Pipeline(
        policies,
        generative or LiteLLMEngine(retries=settings.upstream_retries),
        recorder,
        live,
        outcomes=outcomes,
        metrics=metrics,
        prompt_cap=settings.prompt_cap_bytes if settings.store_prompts else None,
        learning=learning,
        redact=redact,
    )
    metrics.background_in_flight.set_function(lambda: pipeline.inflight.background)
    reloader = PolicyReloader(settings.policies, policies, rollout_store, live, pipeline)
    admins = settings.admins()
    usage = UsageStore(engine)
    gate = Gate(
        KeyStore(engine),
        usage,
        admins,
        required=settings.agent_auth == "required",
        ttl_s=settings.key_cache_ttl_s,
        timeout_s=settings.db_timeout_s,
    )
    pipeline.records.spent = gate.spent
    state = AppState(
        settings,
        policies,
        pipeline,
        decisions,
        recorder,
        rollout_store,
        live,
        outcomes,
        metrics,
        reloader,
        gate,
        admins,
    )
    state.learning = learning
    state.learner = learner

    async def prepare_database() -> None:
        await anyio.to_thread.run_sync(db.upgrade, settings.db_url)
        await anyio.to_thread.run_sync(rollout_store.sync_policies, policies.policies)

    services = Services(
        [  # started in this order, stopped in reverse
            Hooks("database", prepare_database, engine.dispose),
            Hooks("rollouts, first read", live.refresh),
            Hooks("agent keys, first read", gate.cache.reload),
            Task("agent keys, by the clock", gate.cache.keep_fresh),
            *_key_notices(settings.db_url, gate),
            Hooks("upstream", pipeline.generative.warm_up),
            Hooks("decision recorder", recorder.start, recorder.stop),
            Hooks("live rollouts", live.start, live.stop),
            Hooks("served memories", memories.start, memories.stop),
            Hooks("background work", on_stop=lambda: _drain(pipeline, settings.shutdown_timeout_s)),
            Hooks("key spend", on_stop=gate.drain),
            Hooks("learner", learner.start, learner.stop),
            Hooks("policy reloader", on_stop=reloader.stop),
            Task(
                "retention",
                lambda: _prune_every_hour(decisions, parse_since(settings.retention), exemplars, usage),
            ),
            Task("local models", lambda: _load_local(state, local_factory, settings)),
            ReloadOnSighup(reloader),
        ]
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await services.start()
        try:
            yield
        finally:
            await services.stop()

    app = FastAPI(title="shadowswitch", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.shadowswitch = state
    # The agents' routes on the app's own router: behind an included one they cost 10 µs more
    app.router.routes.extend(chat.router.routes)
    for module in (admin, keys, report, health, dashboard, learning_api):
        app.include_router(module.router)
    app.mount("/dashboard/static", StaticFiles(directory=dashboard.HERE / "static"), name="dashboard-static")
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    _install_error_handlers(app)
    return app


def app_from_env() -> FastAPI:
    """The app from `Settings()` alone: the factory each `serve --workers N` process calls."""
    level = os.environ.get("SHADOWSWITCH_LOG_LEVEL", "info").upper()
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    return create_app(Settings())


class ReloadOnSighup:
    """SIGHUP reloads the policies, as daemons do. Only the main thread may handle signals (not a
    server a test runs in a thread), and Windows has no SIGHUP: there it does nothing."""

    name = "SIGHUP reload"

    def __init__(self, reloader: PolicyReloader):
        self.reloader = reloader
        self.loop: asyncio.AbstractEventLoop | None = None

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            loop.add_signal_handler(signal.SIGHUP, self.reloader.reload_soon, "signal:SIGHUP")
        except (AttributeError, NotImplementedError, RuntimeError, ValueError):
            log.debug("SIGHUP not handled here; reload with POST /v1/shadowswitch/policies/reload")
            return
        self.loop = loop

    async def stop(self) -> None:
        if self.loop is not None:
            self.loop.remove_signal_handler(signal.SIGHUP)
            self.loop = None


def _key_notices(db_url: str, gate: Gate) -> list[Task]:
    """On PostgreSQL, a key made or revoked anywhere is re-read here at once (LISTEN/NOTIFY)."""
    if not notices.listens(db_url):
        return []
    return [
        Task("agent keys, notices", lambda: notices.listen(db_url, notices.KEYS, gate.cache.refresh_soon))
    ]


async def _drain(pipeline: Pipeline, timeout_s: float) -> None:
    """Shutdown: let background comparisons and breaker events finish, within a bound."""
    try:
        await asyncio.wait_for(pipeline.drain(), timeout_s)
    except TimeoutError:
        log.warning("shutdown: background work still running after %g s was cancelled", timeout_s)


async def _prune_every_hour(
    decisions: DecisionStore, retention: timedelta, exemplars: ExemplarStore, usage: UsageStore
) -> None:
    """Retention: decisions and exemplars older than `settings.retention` go, hourly, off the event
    loop; so do agent keys' usage windows over two days old (no limit looks back further)."""
    while True:
        try:
            await anyio.to_thread.run_sync(usage.prune, utcnow() - timedelta(days=2))
            await anyio.to_thread.run_sync(exemplars.prune, utcnow() - retention)
            removed = await anyio.to_thread.run_sync(decisions.prune, utcnow() - retention)
            if removed:
                log.info("retention: pruned %d decisions older than %s", removed, retention)
        except SQLAlchemyError:
            log.exception("retention: pruning failed; trying again in an hour")
        await asyncio.sleep(3600)


async def _load_local(state: AppState, factory: LocalFactory | None, settings: Settings) -> None:
    """Load the local models off the event loop; the proxy serves generatively meanwhile."""
    from shadowswitch.engines.local.runtime.process import freeze_heap

    if factory is None and not settings.load_models:
        state.models_ready = True  # nothing to load: generative only, by configuration
        freeze_heap()  # LiteLLM's and the app's objects, warmed up by now, as after a load
        return
    try:
        build = factory or _embedded_factory(settings, state.policies)
        state.pipeline.use_local(await anyio.to_thread.run_sync(build))
        state.models_ready = True
        freeze_heap()
        log.info("local engine ready")
        state.reloader.load_models()  # a reload while these loaded may have named more models
    except Exception:
        log.exception("could not load the local engine; serving generatively only")


def _embedded_factory(settings: Settings, policies: PolicySet) -> LocalFactory:
    """Load one engine per model the policies name (every policy may be switched on at run time)."""

    def build() -> LocalEngine | ModelEngine:
        if settings.engine_socket is not None:  # `serve --workers N`: one engine process for all
            from shadowswitch.engines.host import SharedEngine

            return SharedEngine.connect(settings.engine_socket)
        from shadowswitch.engines.local import engine_builder

        build_one = engine_builder(settings.calibration, settings.knowledge, settings.model_cache)
        return EngineSet.load({p.engine.source for p in policies.policies.values()}, build_one)

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

    @app.exception_handler(SQLAlchemyError)
    async def on_database(_request: Request, exc: SQLAlchemyError) -> JSONResponse:
        # the database is away or slow (chat completions are still served, from the spool);
        # what needs it now may be retried
        log.warning("database unavailable: %s", type(exc).__name__)
        body = {
            "error": {
                "message": "the database is unavailable; try again shortly",
                "type": "server_error",
                "param": None,
                "code": "database_unavailable",
            }
        }
        return JSONResponse(body, status_code=503, headers={"Retry-After": "1"})

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
