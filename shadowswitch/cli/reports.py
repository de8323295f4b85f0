"""`shadowswitch report`: the comparison of both paths per task type, as tables or JSON."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.table import Table

from shadowswitch.cli.common import DbOpt, console, open_stores, parse_age
from shadowswitch.cli.learning import learning_stores, versions_table


def report(
    task: Annotated[str | None, typer.Option(help="Only this task type")] = None,
    since: Annotated[str, typer.Option(help="Window, e.g. 24h, 30m, 7d")] = "24h",
    as_json: Annotated[bool, typer.Option("--json", help="The JSON the API serves")] = False,
    db: DbOpt = None,
) -> None:
    """Compare the local and generative paths per task type, with intervals and a verdict."""
    from shadowswitch.analysis.report import build_report, rollout_modes
    from shadowswitch.store.tables import utcnow

    window = parse_age(since)
    rollouts, decisions = open_stores(db)
    until = utcnow()
    rows = decisions.since(until - window, task)
    known = rollouts.list()
    ramps = rollouts.statuses(known)
    result = build_report(rows, until - window, until, rollout_modes(known), ramps)
    _add_learning(result, db)
    if as_json:
        print(json.dumps(result, indent=2))
        return
    if not result["task_types"]:
        console.print(f"no decisions since {result['since'][:19]}")
    for entry in result["task_types"]:
        console.print(report_table(entry))
        console.print(verdict_line(entry))
        if entry.get("learning", {}).get("versions"):  # a task type that has learned: per version
            console.print(versions_table(entry["learning"]))
    if any(k["key"] for k in result["keys"]):
        console.print(keys_table(result["keys"]))


def keys_table(keys: list[dict[str, Any]]) -> Table:
    table = Table("key", "requests", "paths", "same call", "upstream USD", "task types", title="by agent key")
    for k in keys:
        paths = ", ".join(f"{p} {n}" for p, n in k["paths"].items())
        usd = f"{k['upstream_usd']:.6f}" if k["upstream_usd"] is not None else "unknown"
        tasks = ", ".join(k["task_types"])
        table.add_row(k["key"] or "(no key)", str(k["requests"]), paths, _rate(k["same_call"]), usd, tasks)
    return table


def _add_learning(result: dict[str, Any], db: str | None) -> None:
    """Per task type of the policies (SHADOWSWITCH_POLICIES), learning's figures, as the API adds them."""
    from shadowswitch.learning.challenger import status

    store, engines = learning_stores(db, None)
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
