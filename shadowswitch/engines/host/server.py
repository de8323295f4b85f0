"""The engine process: the models loaded once, answering the workers on a Unix socket.

`python -m shadowswitch.engines.host --socket PATH` (started by `serve --workers N`). It reads
the same settings as the workers (the environment) and loads the models the policies name; a
model a reloaded policy names later is loaded when a request first asks for it. It exits when
the process that started it is gone, so a killed `serve` leaves no engine behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Protocol

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from shadowswitch.engines import priority
from shadowswitch.engines.base import Choice
from shadowswitch.engines.engine_set import EngineSet
from shadowswitch.engines.host import wire
from shadowswitch.engines.local.runtime.lru import LRU
from shadowswitch.errors import EngineUnavailable, UnsupportedRequest
from shadowswitch.policy.models import ModelSource

log = logging.getLogger(__name__)
MEMORIES = 64  # learned states kept by digest: a few per task type, across every worker


class HostSettings(Protocol):
    """What the engine host reads of the process's settings (`server.settings.Settings`)."""

    @property
    def policies(self) -> Path: ...  # the models they name are loaded
    @property
    def calibration(self) -> Path: ...
    @property
    def knowledge(self) -> tuple[str, ...]: ...
    @property
    def model_cache(self) -> Path | None: ...


class Host:
    """The engine set, loaded off the event loop, and the learned states the workers sent."""

    def __init__(self, settings: HostSettings) -> None:
        self.settings = settings
        self.engines: EngineSet | None = None
        self.memories: LRU[str, Any] = LRU(MEMORIES)

    def load(self) -> None:
        from shadowswitch.engines.local import engine_builder, freeze_heap
        from shadowswitch.policy import load_policies

        settings = self.settings
        build = engine_builder(settings.calibration, settings.knowledge, settings.model_cache)
        sources = {p.engine.source for p in load_policies(settings.policies).policies.values()}
        self.engines = EngineSet.load(sources, build)  # one bad model leaves the others serving
        freeze_heap()
        log.info("engine host ready: %s", ", ".join(map(str, sorted(self.engines.engines))) or "no model yet")

    async def answer(self, job: wire.Job) -> Choice | wire.Failure | None:
        """The Choice, or a `wire.Failure`; None when the learned state must be sent first."""
        engines = self.engines
        if engines is None:
            return wire.Failure("unavailable", "the engine host is still loading its models")
        model = job.policy.engine.source
        if not engines.serves(model):  # which starts loading it, if it may
            why = "could not be loaded (see the engine's log)" if engines.failed(model) else "is loading"
            return wire.Failure("unavailable", f"model {model} {why}")
        memory = None
        if job.memory_digest is not None:
            memory = self.memories.get(job.memory_digest)
            if memory is None and job.memory is None:
                return None
            if memory is None and job.memory is not None:
                memory = await anyio.to_thread.run_sync(wire.load, job.memory)
                self.memories.put(job.memory_digest, memory)
        mark = priority.mark(job.background)  # the worker's mark, for this engine's queue
        try:
            if job.tool is not None:
                return await engines.fill_tool(job.request, job.policy, job.tool, memory)
            return await engines.decide(job.request, job.policy, memory)
        except UnsupportedRequest as exc:
            return wire.Failure("unsupported", exc.message)
        except EngineUnavailable as exc:  # a remote model server is away
            return wire.Failure("unavailable", exc.message)
        except Exception as exc:  # the worker records it as an engine error, as in one process
            log.exception("engine job failed")
            return wire.Failure("error", f"{type(exc).__name__}: {exc}")
        finally:
            priority.reset(mark)

    def region_of(self, name: str) -> str | None:
        engines = self.engines
        region = (
            engines.region_table(next(iter(engines.engines), ModelSource("embedded"))) if engines else None
        )
        return region(name) if region else None


def create_host_app(host: Host) -> Starlette:
    async def health(_request: Request) -> JSONResponse:
        ready = host.engines is not None
        models = [str(s) for s in sorted(host.engines.engines)] if host.engines else []
        return JSONResponse(
            {"ready": ready, "models": models, "pid": os.getpid()}, status_code=200 if ready else 503
        )

    async def job(request: Request) -> Response:
        body = await request.body()
        answer = await host.answer(await anyio.to_thread.run_sync(wire.load, body))
        if answer is None:
            return Response(status_code=wire.MEMORY_UNKNOWN)
        return Response(wire.dump(answer), media_type=wire.CONTENT_TYPE)

    async def region(request: Request) -> JSONResponse:
        return JSONResponse({"region": host.region_of(request.query_params.get("name", ""))})

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        loading = asyncio.create_task(anyio.to_thread.run_sync(host.load))
        loading.add_done_callback(_said)
        yield
        loading.cancel()

    routes = [Route("/health", health), Route("/job", job, methods=["POST"]), Route("/region", region)]
    return Starlette(routes=routes, lifespan=lifespan)


def _said(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("engine host could not start: %s", task.exception(), exc_info=task.exception())


def exit_with_parent(parent: int, every_s: float = 1.0) -> None:
    """A thread that ends this process once the one that started it is gone (SIGKILLed `serve`)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every_s)
        log.warning("engine host: serve (pid %d) is gone; exiting", parent)
        os._exit(0)

    threading.Thread(target=watch, name="exit with parent", daemon=True).start()


def run(socket: Path, settings: HostSettings, log_level: str = "info") -> None:
    """Serve the engine on `socket` with the process's `settings` (read by the entry point)."""
    import uvicorn

    logging.basicConfig(level=log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    exit_with_parent(os.getppid())
    with contextlib.suppress(FileNotFoundError):
        socket.unlink()  # a socket left by an engine that was killed
    app = create_host_app(Host(settings))
    uvicorn.run(app, uds=str(socket), log_level=log_level.lower(), timeout_keep_alive=75)
