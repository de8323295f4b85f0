"""`shadowswitch serve`: one process, or workers behind one socket."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import typer

from shadowswitch.cli.common import DbOpt, err, settings_from


def serve(
    host: Annotated[str | None, typer.Option(help="Address to bind [default 127.0.0.1]")] = None,
    port: Annotated[int | None, typer.Option(help="Port [default 8787]")] = None,
    policies: Annotated[Path | None, typer.Option(help="Policy directory [default ./policies]")] = None,
    db: DbOpt = None,
    no_models: Annotated[
        bool, typer.Option("--no-models", help="Generative only: load no local model")
    ] = False,
    log_level: Annotated[str, typer.Option(help="debug, info, warning")] = "info",
    insecure: Annotated[
        bool,
        typer.Option("--insecure", help="Serve beyond this machine without an admin token or agent keys"),
    ] = False,
    shutdown_timeout: Annotated[
        float | None,
        typer.Option(
            "--shutdown-timeout",
            min=0.1,
            help="SIGTERM: seconds requests in flight may take (env SHADOWSWITCH_SHUTDOWN_TIMEOUT_S; 30)",
        ),
    ] = None,
    workers: Annotated[
        int, typer.Option(min=1, help="Worker processes (they share one engine process for the local models)")
    ] = 1,
) -> None:
    """Run the proxy (OpenAI-compatible, on /v1). SIGHUP reloads policies; SIGTERM drains, exits 0."""
    import logging

    import uvicorn

    from shadowswitch.errors import PolicyError
    from shadowswitch.policy import load_policies

    share_cores()  # before torch loads, here or in the engine process and workers started from here
    logging.basicConfig(level=log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = settings_from(
        host=host, port=port, policies=policies, db_url=db, shutdown_timeout_s=shutdown_timeout
    )
    if not is_loopback(settings.host):
        closed_by_default(settings, insecure)
    if no_models:
        settings.load_models = False
    try:
        if workers > 1:
            load_policies(settings.policies)  # say what is wrong once, not once per worker
        else:
            from shadowswitch.server.app import create_app  # with workers, this process only supervises

            application = create_app(settings)
    except PolicyError as exc:
        for line in exc.problems:
            typer.echo(line, err=True)
        raise typer.Exit(1) from None
    exit_zero_on_sigterm()
    if workers > 1:
        _serve_workers(settings, workers, log_level)
        return
    uvicorn.run(application, **_uvicorn_options(settings, log_level))


def share_cores() -> None:
    """Let OpenMP threads that wait for work sleep rather than spin (`OMP_WAIT_POLICY=PASSIVE`),
    unless the environment says otherwise. Call it before torch is imported: the OpenMP runtime
    reads the variable once, when it loads.

    A server's engine never has the cores to itself: the event loop parses, records and answers
    on them between its passes, and the agents' clients often run beside it. Spinning waiters
    then hold a core that one of torch's own threads needs, and every pass waits for a thread
    that is not running: on 2 shared cores, 6-7x slower decisions (bench/scaling, the simple
    traffic), where sleeping waiters cost nothing measurable on an idle machine."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def closed_by_default(settings: Any, insecure: bool) -> None:
    """On an address other machines reach, start only with admin tokens and agent keys in force,
    as Redis' protected mode does; `--insecure` starts it anyway, with a warning in the log."""
    import logging

    open_doors = []
    if not settings.admins():
        open_doors.append(
            "no admin token is set, so anyone there could read decisions and change rollouts: set "
            "SHADOWSWITCH_ADMIN_TOKEN"
        )
    if not agent_keys_in_force(settings):
        open_doors.append(
            "no agent key is in force, so anyone there could spend the upstream's key: make one "
            "(`shadowswitch keys create NAME`) or set SHADOWSWITCH_AGENT_AUTH=required"
        )
    for door in open_doors:
        if insecure:
            logging.getLogger("shadowswitch.serve").warning("--insecure on %s: %s", settings.host, door)
        else:
            err.print(f"error: {settings.host} is reachable from other machines and {door}.")
    if open_doors and not insecure:
        err.print("Do that, bind 127.0.0.1, or pass --insecure to serve it open anyway.")
        raise typer.Exit(2)


def agent_keys_in_force(settings: Any) -> bool:
    """SHADOWSWITCH_AGENT_AUTH=required, or a key made in the database (a revoked one too: it
    keeps the door closed, as it does in the running server)."""
    if settings.agent_auth == "required":
        return True
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import SQLAlchemyError

    from shadowswitch.access.store import KeyStore
    from shadowswitch.store import db

    parsed = make_url(settings.db_url)
    if parsed.get_backend_name() == "sqlite" and not Path(parsed.database or "").is_file():
        return False  # no database yet, so no key
    engine = db.make_engine(settings.db_url)
    try:
        return KeyStore(engine).known().any_made
    except SQLAlchemyError:  # no keys table yet (a database before its first upgrade), or none to reach
        return False
    finally:
        engine.dispose()


def exit_zero_on_sigterm() -> None:
    """A SIGTERM shutdown that finished its work exits 0, as service managers expect.

    uvicorn drains on SIGTERM, then raises the signal again for the handler it found; with the
    default one the process would die of it (exit code -15). Before uvicorn starts, this exits too.
    """
    import signal
    import sys

    signal.signal(signal.SIGTERM, lambda _sig, _frame: sys.exit(0))


WORKER_HEALTHCHECK_S = 120


KEEP_ALIVE_S = 75  # as nginx


def _serve_workers(settings: Any, workers: int, log_level: str) -> None:
    """Several processes on one port: each builds its app from the environment, so the flags go
    there; the schema is migrated once, before the workers race to do it. The local models load
    once, in an engine process the workers share (shadowswitch.engines.host)."""
    import contextlib
    import os
    import subprocess
    import sys

    from shadowswitch.engines.host.process import EngineProcess

    os.environ.update(
        SHADOWSWITCH_HOST=settings.host,
        SHADOWSWITCH_PORT=str(settings.port),
        SHADOWSWITCH_POLICIES=str(Path(settings.policies).resolve()),
        SHADOWSWITCH_DB_URL=settings.db_url,
        SHADOWSWITCH_LOAD_MODELS=str(settings.load_models).lower(),
        SHADOWSWITCH_LOG_LEVEL=log_level,
        SHADOWSWITCH_SHUTDOWN_TIMEOUT_S=str(settings.shutdown_timeout_s),
    )
    # In a process of its own: SQLAlchemy and Alembic would stay in this one (~50 MB), which only
    # supervises.
    upgrade = [sys.executable, "-m", "shadowswitch.cli", "db", "upgrade", "--db", settings.db_url]
    if subprocess.run(upgrade).returncode != 0:
        raise typer.Exit(1)
    with contextlib.ExitStack() as stack:
        if settings.load_models:  # one copy of the models, shared by the workers
            engine = stack.enter_context(EngineProcess(log_level))
            os.environ["SHADOWSWITCH_ENGINE_SOCKET"] = str(engine.socket)
        _run_workers(settings, workers, log_level)


def _run_workers(settings: Any, workers: int, log_level: str) -> None:
    import multiprocessing

    import uvicorn
    from uvicorn import _subprocess

    # uvicorn spawns its workers: each a fresh interpreter importing the proxy again, ~400 MB of
    # libraries apiece. Forked instead from multiprocessing's forkserver, which imported them once
    # (cli/preload.py), the workers share those pages. A forkserver is a clean, single-threaded
    # process: forking this one, whose engine process and threads are running, would not be.
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["shadowswitch.cli.preload"])
    setattr(_subprocess, "spawn", context)  # noqa: B010  uvicorn has no option for the start method
    uvicorn.run(
        "shadowswitch.server.app:app_from_env",
        factory=True,
        workers=workers,
        # uvicorn kills a worker that misses its health ping for 5 s, and every request in flight
        # on it; a worker loading models or starved of CPU under load is busy, not hung.
        timeout_worker_healthcheck=WORKER_HEALTHCHECK_S,
        **_uvicorn_options(settings, log_level),
    )


def _uvicorn_options(settings: Any, log_level: str) -> dict[str, Any]:
    return {
        "host": settings.host,
        "port": settings.port,
        "log_level": log_level.lower(),
        "timeout_graceful_shutdown": settings.shutdown_timeout_s,
        # Longer than the agents' idle pooled connections (httpx, hence the openai SDK: 5 s), so
        # the client always closes first: at uvicorn's 5 s both ends time out together, and a
        # request sent on a connection the server is closing fails as a connection error.
        "timeout_keep_alive": KEEP_ALIVE_S,
    }


def is_loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name: it may resolve anywhere
