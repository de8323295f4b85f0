"""`shadowswitch rollout ...`: see and change rollouts and ramps (acts on the database)."""

from __future__ import annotations

import getpass
import json
from typing import Annotated, Any

import typer
from rich.table import Table

from shadowswitch.cli.common import DbOpt, console, err, open_stores

rollout_app = typer.Typer(help="See and change rollouts (acts on the database).", no_args_is_help=True)


@rollout_app.command("status")
def rollout_status(
    db: DbOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Everything as JSON")] = False,
    task: Annotated[str | None, typer.Option(help="Only this task type's audit events")] = None,
    limit: Annotated[int, typer.Option(help="How many audit events to show", min=1, max=1000)] = 10,
) -> None:
    """Mode, percent, breaker and ramp of every task type, and the latest audit events."""
    from shadowswitch.api.responses import AuditEventOut, RolloutOut

    rollouts, _ = open_stores(db)
    rows = [RolloutOut.shown(rollouts, r).model_dump(mode="json") for r in rollouts.list()]
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
    rollouts, _ = open_stores(db)
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

    if action not in ACTIONS:
        err.print(f"error: action must be one of {', '.join(ACTIONS)}")
        raise typer.Exit(2)
    rollouts, _ = open_stores(db)
    try:
        row = rollouts.command(task, action, actor=f"cli:{getpass.getuser()}", reason=reason)
    except ShadowswitchError as exc:
        err.print(f"error: {exc.message}")
        raise typer.Exit(1) from None
    r = RolloutOut.shown(rollouts, row).model_dump(mode="json")
    console.print(f"{r['task_type']}: {r['mode']} {r['percent']:g}%; ramp {r['ramp']['text']}")
