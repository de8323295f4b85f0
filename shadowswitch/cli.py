"""The `shadowswitch` command: commands only, no logic."""

from __future__ import annotations

import getpass
import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(
    help="Move an agent's decision calls onto a small local model, safely.", no_args_is_help=True
)
policy_app = typer.Typer(help="Check policy files, and reload them in running servers.", no_args_is_help=True)
rollout_app = typer.Typer(help="See and change rollouts (acts on the database).", no_args_is_help=True)
db_app = typer.Typer(help="Database schema and retention.", no_args_is_help=True)
app.add_typer(policy_app, name="policy")
app.add_typer(rollout_app, name="rollout")
app.add_typer(db_app, name="db")

console = Console()
err = Console(stderr=True)

DbOpt = Annotated[str | None, typer.Option("--db", help="Database URL [env SHADOWSWITCH_DB_URL]")]


def _settings(**overrides: Any) -> Any:
    from shadowswitch.settings import Settings

    return Settings(**{k: v for k, v in overrides.items() if v is not None})


@app.command()
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
        bool, typer.Option("--insecure", help="Serve beyond this machine without an admin token")
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
        int, typer.Option(min=1, help="Worker processes (each loads its own local models)")
    ] = 1,
) -> None:
    """Run the proxy (OpenAI-compatible, on /v1). SIGHUP reloads policies; SIGTERM drains, exits 0."""
    import logging

    import uvicorn

    from shadowswitch.app import create_app
    from shadowswitch.errors import PolicyError
    from shadowswitch.policy import load_policies

    logging.basicConfig(level=log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = _settings(
        host=host, port=port, policies=policies, db_url=db, shutdown_timeout_s=shutdown_timeout
    )
    if not settings.admin_token and not insecure and not is_loopback(settings.host):
        err.print(
            f"error: {settings.host} is reachable from other machines and no admin token is set, so anyone "
            "there could read decisions and change rollouts. Set SHADOWSWITCH_ADMIN_TOKEN, bind "
            "127.0.0.1, or pass --insecure."
        )
        raise typer.Exit(2)
    if no_models:
        settings.load_models = False
    try:
        if workers > 1:
            load_policies(settings.policies)  # say what is wrong once, not once per worker
        else:
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
    there; the schema is migrated once here, before the workers race to do it."""
    import os

    import uvicorn

    from shadowswitch.store import db as database

    os.environ.update(
        SHADOWSWITCH_HOST=settings.host,
        SHADOWSWITCH_PORT=str(settings.port),
        SHADOWSWITCH_POLICIES=str(Path(settings.policies).resolve()),
        SHADOWSWITCH_DB_URL=settings.db_url,
        SHADOWSWITCH_LOAD_MODELS=str(settings.load_models).lower(),
        SHADOWSWITCH_LOG_LEVEL=log_level,
        SHADOWSWITCH_SHUTDOWN_TIMEOUT_S=str(settings.shutdown_timeout_s),
    )
    database.upgrade(settings.db_url)
    uvicorn.run(
        "shadowswitch.app:app_from_env",
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


@policy_app.command("check")
def policy_check(
    path: Annotated[Path, typer.Argument(help="Policy directory or file")] = Path("policies"),
) -> None:
    """Validate policies: exit 0 when valid; 1 with `file:line: field: message` lines."""
    from shadowswitch.errors import PolicyError
    from shadowswitch.policy import load_policies

    directory = path if path.is_dir() else path.parent
    try:
        loaded = load_policies(directory)
    except PolicyError as exc:
        problems = [p for p in exc.problems if path.is_dir() or p.startswith(str(path))]
        if problems:
            for line in problems:
                typer.echo(line)
            raise typer.Exit(1) from None
        loaded = None
    count = len(loaded.policies) if loaded else 1
    console.print(f"ok: {count} polic{'y' if count == 1 else 'ies'} valid in {path}")


@policy_app.command("reload")
def policy_reload(
    url: Annotated[
        list[str] | None,
        typer.Option(help="A server's base URL, repeatable (env SHADOWSWITCH_URL; else HOST:PORT)"),
    ] = None,
    token: Annotated[
        str | None, typer.Option(help="Admin bearer token (env SHADOWSWITCH_ADMIN_TOKEN)", show_default=False)
    ] = None,
) -> None:
    """Ask running servers to reload their policies (admin); exit 1 if any refused or did not answer."""
    settings = _settings()
    urls = url or [settings.url or f"http://{_client_host(settings.host)}:{settings.port}"]
    failed = [u for u in urls if not _reload_one(u.rstrip("/"), token or settings.admin_token)]
    if failed:
        raise typer.Exit(1)


def _reload_one(url: str, token: str | None) -> bool:
    import httpx

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        response = httpx.post(f"{url}/v1/shadowswitch/policies/reload", headers=headers, timeout=60)
    except httpx.HTTPError as exc:
        message = f"no shadowswitch server answers at {url} ({type(exc).__name__}): is `serve` running?"
        typer.echo(f"error: {message}", err=True)
        return False
    try:
        body = response.json()
    except ValueError:
        body = None
    if response.status_code != 200 or not isinstance(body, dict):
        error = (body or {}).get("error") if isinstance(body, dict) else None
        message = (error or {}).get("message") or response.text[:200]
        # plain lines, never wrapped: `file:line: field: message`, as `policy check` prints them
        typer.echo(f"error: {url} answered {response.status_code}: {message}", err=True)
        return False
    typer.echo(f"{url}: reloaded, {_reload_summary(body)}")
    return True


def _reload_summary(body: dict[str, Any]) -> str:
    count = len(body["task_types"])
    parts = [f"{count} task type{'' if count == 1 else 's'}"]
    parts += [f"{key} {', '.join(body[key])}" for key in ("added", "changed", "removed") if body[key]]
    if body["audit"]:
        parts.append(f"{len(body['audit'])} rollout change(s) audited")
    if body["loading_models"]:
        parts.append(f"loading {', '.join(body['loading_models'])}")
    return "; ".join(parts)


def _client_host(host: str) -> str:
    """Where this machine reaches a server bound to `host` (any address → loopback)."""
    if host in ("0.0.0.0", "::", ""):
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


def _stores(db: str | None) -> tuple[Any, Any]:
    """The stores over a database already at this version's schema; else exit 1 saying what to run."""
    from shadowswitch.rollouts.store.rollouts import RolloutStore
    from shadowswitch.store import db as database
    from shadowswitch.store.decisions import DecisionStore

    url = _settings(db_url=db).db_url
    problem = database.schema_problem(url)
    if problem:
        err.print(f"error: {problem}: run `shadowswitch db upgrade{' --db ' + db if db else ''}` first")
        raise typer.Exit(1)
    engine = database.make_engine(url)
    return RolloutStore(engine), DecisionStore(engine)


@rollout_app.command("status")
def rollout_status(
    db: DbOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Everything as JSON")] = False,
    task: Annotated[str | None, typer.Option(help="Only this task type's audit events")] = None,
    limit: Annotated[int, typer.Option(help="How many audit events to show", min=1, max=1000)] = 10,
) -> None:
    """Mode, percent, breaker and ramp of every task type, and the latest audit events."""
    from shadowswitch.api.responses import AuditEventOut, RolloutOut
    from shadowswitch.rollouts.store.ramps import RampStore

    rollouts, _ = _stores(db)
    ramps = RampStore(rollouts.engine)
    rows = [RolloutOut.shown(ramps, r).model_dump(mode="json") for r in rollouts.list()]
    events = [AuditEventOut.of(e).model_dump(mode="json") for e in rollouts.audit(task, limit=limit)]
    if as_json:
        print(json.dumps({"rollouts": rows, "audit": events}, indent=2))
        return
    console.print(_rollout_table(rows) if rows else "no task types yet: start `shadowswitch serve`")
    if events:
        console.print(_audit_table(events))


def _rollout_table(rows: list[dict[str, Any]]) -> Table:
    table = Table("task type", "mode", "percent", "breaker", "failures", "re-probe at", "updated", "ramp")
    for r in rows:
        b = r["breaker"]
        state = b["state"] if b["state"] != "half_open" else f"half-open ({b['half_open_successes']} ok)"
        when = (b["reprobe_at"] or "")[:19]
        updated = (r["updated_at"] or "")[:19]
        failures = str(b["consecutive_failures"])
        ramp = r["ramp"]["text"] if r.get("ramp") else "–"
        table.add_row(r["task_type"], r["mode"], f"{r['percent']:g}%", state, failures, when, updated, ramp)
    return table


def _audit_table(events: list[dict[str, Any]]) -> Table:
    log = Table("when", "task type", "who", "what", "change", "reason", title="latest changes")
    for e in events:
        old, new = e["old"], e["new"]
        change = f"{old['mode'] or '-'} {_pct(old['percent'])} → {new['mode']} {_pct(new['percent'])}"
        change = change if new["mode"] else ""  # a ramp event that moved nothing
        reason = e["reason"] or ""
        if e["decision_ids"]:
            reason += f" [decisions {', '.join(e['decision_ids'])}]"
        log.add_row((e["at"] or "")[:19], e["task_type"], e["actor"], e["kind"], change, reason)
    return log


def _pct(value: float | None) -> str:
    return "" if value is None else f"{value:g}%"


@rollout_app.command("set")
def rollout_set(
    task: Annotated[str, typer.Argument(help="Task type")],
    percent: Annotated[float | None, typer.Option(help="Share of sticky keys served locally (0-100)")] = None,
    mode: Annotated[str | None, typer.Option(help="off | shadow | canary")] = None,
    reason: Annotated[str | None, typer.Option(help="Why (kept in the audit log)")] = None,
    db: DbOpt = None,
) -> None:
    """Change a task type's rollout; every server sees it within a second."""
    from shadowswitch.api.responses import RolloutOut
    from shadowswitch.errors import ShadowswitchError

    if percent is None and mode is None:
        err.print("give --percent N or --mode off|shadow|canary")
        raise typer.Exit(2)
    rollouts, _ = _stores(db)
    try:
        row = rollouts.set(task, actor=f"cli:{getpass.getuser()}", mode=mode, percent=percent, reason=reason)
    except ShadowswitchError as exc:
        err.print(f"error: {exc.message}")
        raise typer.Exit(1) from None
    r = RolloutOut.of(row).model_dump(mode="json")
    console.print(f"{r['task_type']}: {r['mode']} {r['percent']:g}% (breaker {r['breaker']['state']})")


@rollout_app.command("ramp")
def rollout_ramp(
    task: Annotated[str, typer.Argument(help="Task type")],
    action: Annotated[str, typer.Argument(help="start | pause | resume | abort")],
    reason: Annotated[str | None, typer.Option(help="Why (kept in the audit log)")] = None,
    db: DbOpt = None,
) -> None:
    """Start, pause, resume or abort the ramp that raises the percentage by itself."""
    from shadowswitch.api.responses import RolloutOut
    from shadowswitch.errors import ShadowswitchError
    from shadowswitch.rollouts.ramp import ACTIONS
    from shadowswitch.rollouts.store.ramps import RampStore

    if action not in ACTIONS:
        err.print(f"error: action must be one of {', '.join(ACTIONS)}")
        raise typer.Exit(2)
    rollouts, _ = _stores(db)
    ramps = RampStore(rollouts.engine)
    try:
        row = ramps.command(task, action, actor=f"cli:{getpass.getuser()}", reason=reason)
    except ShadowswitchError as exc:
        err.print(f"error: {exc.message}")
        raise typer.Exit(1) from None
    r = RolloutOut.shown(ramps, row).model_dump(mode="json")
    console.print(f"{r['task_type']}: {r['mode']} {r['percent']:g}%; ramp {r['ramp']['text']}")


@app.command()
def report(
    task: Annotated[str | None, typer.Option(help="Only this task type")] = None,
    since: Annotated[str, typer.Option(help="Window, e.g. 24h, 30m, 7d")] = "24h",
    as_json: Annotated[bool, typer.Option("--json", help="The JSON the API serves")] = False,
    db: DbOpt = None,
) -> None:
    """Compare the local and generative paths per task type, with intervals and a verdict."""
    from shadowswitch.analysis.report import build_report, rollout_modes
    from shadowswitch.rollouts.store.ramps import RampStore, ramp_statuses
    from shadowswitch.store.tables import utcnow

    window = parse_age(since)
    rollouts, decisions = _stores(db)
    until = utcnow()
    rows = decisions.since(until - window, task)
    known = rollouts.list()
    ramps = ramp_statuses(RampStore(rollouts.engine), known)
    result = build_report(rows, until - window, until, rollout_modes(known), ramps)
    if as_json:
        _add_learning(result, db)
        print(json.dumps(result, indent=2))
        return
    if not result["task_types"]:
        console.print(f"no decisions since {result['since'][:19]}")
    for entry in result["task_types"]:
        console.print(report_table(entry))
        console.print(verdict_line(entry))


def _add_learning(result: dict[str, Any], db: str | None) -> None:
    """Per task type of the policies (SHADOWSWITCH_POLICIES), learning's figures, as the API adds them."""
    from shadowswitch.learning.challenger import status

    store, engines = _learning(db, None)
    for entry in result["task_types"]:
        if entry["task_type"] in engines:
            entry["learning"] = status(store, entry["task_type"], engines[entry["task_type"]])


def report_table(entry: dict[str, Any]) -> Table:
    title = f"{entry['task_type']} — {entry['mode']} {entry['percent']:g}%"
    table = Table(
        "path", "requests", "p50 ms", "p95 ms", "p99 ms", "valid", "success", "abstain", title=title
    )
    for path, s in entry["paths"].items():
        latency = s["latency_ms"]
        table.add_row(
            path,
            str(s["requests"]),
            *(_num(latency[p]) for p in ("p50", "p95", "p99")),
            _rate(s["valid"]),
            _rate(s["success"]),
            _rate(s["abstain"]) + _reasons(s["abstain_reasons"]),
        )
    return table


def verdict_line(entry: dict[str, Any]) -> str:
    pairs, verdict = entry["comparison"], entry["verdict"]
    colour = {"safe": "green", "worse": "red"}.get(verdict["kind"], "yellow")
    same = f"same tool {_rate(pairs['same_tool'])}, same call {_rate(pairs['same_call'])}"
    facts = [f"pairs {pairs['pairs']}: {same}"]
    if entry["speedup"]:
        facts.append(f"local {entry['speedup']:g}× faster (p50)")
    saved = entry["saving"]["usd_per_day"]
    facts.append(f"${saved:,.2f}/day saved" if saved is not None else "saving unknown")
    ramp = f"ramp {entry['ramp']['text']}\n" if entry.get("ramp") else ""
    return f"{'; '.join(facts)}\n[{colour}]{verdict['text']}[/{colour}]\n{ramp}"


def _rate(figure: dict[str, Any]) -> str:
    if not figure["n"]:
        return "–"
    low, high = figure["ci95"]
    return f"{figure['rate']:.0%} [{low:.0%}–{high:.0%}] of {figure['n']}"


def _reasons(reasons: dict[str, int]) -> str:
    return (" " + ", ".join(f"{k} {v}" for k, v in reasons.items())) if reasons else ""


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:,.1f}"


@app.command("learn")
def learn_command(
    what: Annotated[str, typer.Argument(help="TASK, or `rollback` / `status`")],
    task: Annotated[str | None, typer.Argument(help="Task type (after rollback / status)")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Judge a challenger, change nothing")] = False,
    policies: Annotated[Path | None, typer.Option(help="Policy directory [default ./policies]")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="The figures as JSON")] = False,
    db: DbOpt = None,
) -> None:
    """Learn from a task type's pairs: learn TASK [--dry-run] | rollback TASK | status [TASK]."""
    from shadowswitch.learning import challenger

    store, engines = _learning(db, policies)
    if what == "status":
        tasks = [task] if task else sorted(engines)
        shown = [challenger.status(store, t, engines.get(t) or _engine_defaults()) for t in tasks]
        if as_json:
            console.print_json(json.dumps(shown))
        for entry in [] if as_json else shown:
            console.print(_learning_table(entry))
        return
    if what == "rollback":
        if not task:
            err.print("error: name the task type: shadowswitch learn rollback TASK")
            raise typer.Exit(2)
        result = challenger.rollback(store, task, actor=f"cli:{getpass.getuser()}")
    else:
        result = _learn_with_progress(store, what, engines.get(what) or _engine_defaults(), dry_run)
    if as_json:
        console.print_json(json.dumps(result))
    else:
        console.print(_learn_line(result))


def _learning(db: str | None, policies: Path | None) -> tuple[Any, dict[str, Any]]:
    from shadowswitch.errors import PolicyError
    from shadowswitch.policy import load_policies
    from shadowswitch.store.exemplars import ExemplarStore

    rollouts, _ = _stores(db)
    try:
        loaded = load_policies(policies or _settings().policies)
    except PolicyError:
        loaded = None  # no policies here: the defaults of the engine section apply
    engines = {t: p.engine for t, p in loaded.policies.items()} if loaded else {}
    return ExemplarStore(rollouts.engine), engines


def _engine_defaults() -> Any:
    from shadowswitch.policy.models import Engine

    return Engine()


def _learn_with_progress(store: Any, task: str, engine: Any, dry_run: bool) -> dict[str, Any]:
    from rich.progress import Progress

    from shadowswitch.learning import challenger

    with Progress(console=err, transient=True) as progress:
        bar = progress.add_task(f"learning {task}", total=1.0)

        def step(name: str, done: float) -> None:
            progress.update(bar, completed=done, description=f"learning {task}: {name}")

        actor = f"cli:{getpass.getuser()}"
        return challenger.learn(store, task, engine, actor=actor, dry_run=dry_run, progress=step)


def _learn_line(result: dict[str, Any]) -> str:
    evaluation = result.get("evaluation") or {}
    head = f"{result['task_type']}: {result['status']} (served version {result.get('served_version')}"
    head += f" → {result['version']})" if "version" in result else ")"
    if evaluation:
        c, s = evaluation["challenger"], evaluation["served"]
        head += (
            f"; held-out {c['pairs']} pairs: challenger agreement {c['agreement']} coverage {c['coverage']},"
            f" served agreement {s['agreement']} coverage {s['coverage']};"
            f" {evaluation['wins']} wins, {evaluation['losses']} losses"
        )
    why = result.get("why_not") or evaluation.get("why_not")
    return head + (f"; {why}" if why else "")


def _learning_table(entry: dict[str, Any]) -> Table:
    table = Table(title=f"learning: {entry['task_type']}")
    for column in ("pairs", "excluded", "served version", "min_confidence", "agreement", "coverage"):
        table.add_column(column)
    recent = entry["recent"]
    table.add_row(
        str(entry["pairs"]),
        str(entry["excluded"]),
        str(entry["served_version"]),
        f"{entry['thresholds']['min_confidence']:g} ({entry['thresholds']['source']})",
        _num_or_dash(recent["agreement"]),
        _num_or_dash(recent["coverage"]),
    )
    return table


def _num_or_dash(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


@db_app.command("upgrade")
def db_upgrade(db: DbOpt = None) -> None:
    """Create or migrate the database schema to the latest version."""
    from shadowswitch.store import db as database

    url = _settings(db_url=db).db_url
    database.upgrade(url)
    console.print(f"database at head: {_redact(url)}")


@db_app.command("prune")
def db_prune(
    older_than: Annotated[
        str | None, typer.Option("--older-than", help="Age like 30d, 12h [env SHADOWSWITCH_RETENTION, 30d]")
    ] = None,
    db: DbOpt = None,
) -> None:
    """Delete decision records older than the given age (`serve` also does it every hour)."""
    older_than = older_than or _settings().retention
    before = datetime.now(UTC) - parse_age(older_than)
    rollouts, decisions = _stores(db)
    from shadowswitch.store.exemplars import ExemplarStore

    exemplars = ExemplarStore(rollouts.engine).prune(before)
    console.print(
        f"deleted {decisions.prune(before)} decisions and {exemplars} exemplars older than {older_than}"
    )


def parse_age(text: str) -> timedelta:
    from shadowswitch.durations import parse_since

    try:
        return parse_since(text)
    except ValueError as exc:
        err.print(f"error: {exc}")
        raise typer.Exit(2) from None


def _redact(url: str) -> str:
    return re.sub(r"//([^:/@]+):[^@]+@", r"//\1:***@", url)


PLUGIN_GROUP = "shadowswitch.cli"


def add_plugins(root: typer.Typer) -> None:
    """Mount command groups other packages register (the benchmark lab's `bench`), never importing
    them by name: the product knows nothing of its plugins."""
    from importlib.metadata import entry_points

    for entry in entry_points(group=PLUGIN_GROUP):
        root.add_typer(entry.load(), name=entry.name)


def main() -> None:
    from shadowswitch.offline import stay_offline

    stay_offline()
    add_plugins(app)
    app()


if __name__ == "__main__":
    main()
