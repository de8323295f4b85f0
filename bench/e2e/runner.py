"""`shadowswitch bench e2e`: task success and task latency of the travel agent, per upstream and path.

Conditions, in one run on one proxy per upstream: `direct` (the agent talks to the upstream),
`off` (through the proxy, pass-through), `shadow` (the local engine runs beside every call) and
`local` (canary 100%: the local engine answers every decision it is confident of; the upstream
still writes text replies and takes what the engine abstains on).
"""

from __future__ import annotations

import contextlib
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from bench.bfcl.results import git_commit, machine_info, write_results
from examples.demo.servers import TASK_TYPE, serving, upstream_settings, wait_ready, write_policies
from examples.demo.stages import Summary, run_tasks, summarise
from examples.demo.story import pick
from examples.demo.upstream import Generator, Simulated, create_upstream
from examples.travel_agent.tasks import TASKS

CONDITIONS = ("direct", "off", "shadow", "local")
UPSTREAMS = ("simulated", "small-lm")
ROLLOUT = {"off": ("off", 0.0), "shadow": ("shadow", 0.0), "local": ("canary", 100.0)}
# The published generative → choice figures this bench is read against (same tasks, same model,
# p50 per task).
SEED = {"task_p50_s": [21.0, 2.1], "speedup": 10.0, "parse_failure_rate": [0.25, 0.005]}


@dataclass
class E2eConfig:
    upstreams: list[str]
    conditions: list[str]
    tasks: int = 45  # per condition, simulated upstream
    small_lm_tasks: int = 10  # per condition, SmolLM2 generating (minutes per task on 2 cores)
    latency: tuple[float, float] = (1.0, 3.0)
    error_rate: float = 0.03
    concurrency: int = 4
    out: Path = Path("bench/results/e2e.json")
    extra: dict[str, Any] = field(default_factory=dict)


LocalFactory = Callable[[], Any]


def run_e2e(
    config: E2eConfig, console: Console | None = None, local_factory: LocalFactory | None = None
) -> dict[str, Any]:
    console = console or Console(width=None if Console().is_terminal else 140)  # logs: whole tables
    started = datetime.now(UTC)
    commit = git_commit()  # the code that runs, read before a long run (the checkout may move on)
    runs: dict[str, dict[str, Any]] = {}
    for upstream in config.upstreams:
        runs[upstream] = measure_upstream(upstream, config, console, local_factory)
    results = {
        "benchmark": "e2e",
        "date": started.isoformat(timespec="seconds"),
        "seconds": round((datetime.now(UTC) - started).total_seconds(), 1),
        "commit": commit,
        "machine": machine_info(),
        "config": {
            "conditions": config.conditions,
            "tasks": config.tasks,
            "small_lm_tasks": config.small_lm_tasks,
            "latency_s": list(config.latency),
            "error_rate": config.error_rate,
            "concurrency": config.concurrency,
            **config.extra,
        },
        "runs": runs,
        "seed_articles": SEED,
        "ratios": {u: ratios(r) for u, r in runs.items()},
    }
    write_results(config.out, results)
    console.print(results_table(results))
    console.print(f"results: {config.out}")
    return results


def measure_upstream(
    upstream: str, config: E2eConfig, console: Console, local_factory: LocalFactory | None
) -> dict[str, Any]:
    count = config.small_lm_tasks if upstream == "small-lm" else config.tasks
    tasks = pick(TASKS, count)
    out: dict[str, Any] = {}
    with _upstream(upstream, config) as (url, name), _proxy(url, name, config, local_factory) as (proxy, db):
        for condition in config.conditions:
            if condition != "direct":
                set_rollout(db, *ROLLOUT[condition])
            target = url if condition == "direct" else proxy
            summary = _run(console, f"{upstream}/{condition}", target, tasks, config, upstream)
            out[condition] = summary.json()
        out["proxy_report"] = _local_path(proxy)
        out["upstream_stats"] = _stats(url)
    return out


@contextlib.contextmanager
def _upstream(kind: str, config: E2eConfig) -> Iterator[tuple[str, str]]:
    generator: Generator
    if kind == "small-lm":
        from examples.demo.small_lm import SmallLM

        generator = SmallLM()
    else:
        generator = Simulated(config.latency, config.error_rate)
    with serving(create_upstream(generator)) as url:
        yield url, generator.name


@contextlib.contextmanager
def _proxy(
    upstream_url: str, model: str, config: E2eConfig, local_factory: LocalFactory | None
) -> Iterator[tuple[str, str]]:
    from shadowswitch.server.app import create_app
    from shadowswitch.server.settings import Settings

    needs_local = bool({"shadow", "local"} & set(config.conditions))
    with tempfile.TemporaryDirectory(prefix="ss-e2e-") as tmp:
        # compare_percent 0: at 100% local the upstream answers only what the engine leaves to it
        # `local` measures the engine serving the prior: no certificate to wait for
        policies = write_policies(
            Path(tmp) / "policies", upstream_settings(model, f"{upstream_url}/v1"), 0, False
        )
        db = f"sqlite:///{tmp}/e2e.db"
        settings = Settings(db_url=db, policies=policies, load_models=needs_local)
        with serving(create_app(settings, local_factory=local_factory if needs_local else None)) as url:
            wait_ready(url)
            yield url, db


def set_rollout(db: str, mode: str, percent: float) -> None:
    from shadowswitch.rollouts.store.repository import RolloutRepository
    from shadowswitch.store import db as database

    RolloutRepository(database.make_engine(db)).set(TASK_TYPE, actor="bench", mode=mode, percent=percent)
    time.sleep(1.0)  # the proxy sees it within its refresh interval


def _run(
    console: Console, label: str, url: str, tasks: list[Any], config: E2eConfig, upstream: str
) -> Summary:
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    concurrency = 1 if upstream == "small-lm" else config.concurrency  # the LM generates one at a time
    with Progress(*columns, console=console, transient=True) as progress:
        bar = progress.add_task(label, total=len(tasks))
        results = run_tasks(
            url, tasks, tag=label, concurrency=concurrency, on_done=lambda _: progress.advance(bar)
        )
    summary = summarise(results)
    console.print(
        f"{label}: success {summary.success:.0%}, p50 {summary.p50_s:.2f} s, p95 {summary.p95_s:.2f} s"
    )
    return summary


def _local_path(proxy: str) -> dict[str, Any]:
    """The proxy's own figures per path (decision latency, validity) over the whole run."""
    report = httpx.get(f"{proxy}/v1/shadowswitch/report", timeout=30).json()
    entry = next((e for e in report["task_types"] if e["task_type"] == TASK_TYPE), None)
    if entry is None:
        return {}
    paths = {
        p: {
            "requests": s["requests"],
            "latency_ms": s["latency_ms"],
            "valid": s["valid"]["rate"],
            "abstain": s["abstain"]["rate"],
            "abstain_reasons": s["abstain_reasons"],
        }
        for p, s in entry["paths"].items()
    }
    return {"paths": paths, "comparison": entry["comparison"], "verdict": entry["verdict"]["text"]}


def _stats(url: str) -> dict[str, Any]:
    stats = httpx.get(f"{url}/stats", timeout=10).json()
    seconds = stats.pop("seconds", [])
    return {**stats, "mean_call_s": round(sum(seconds) / len(seconds), 3) if seconds else None}


def ratios(run: dict[str, Any]) -> dict[str, Any]:
    """Direct against 100% local: the figures the published generate → choose results report."""
    direct, local = run.get("direct"), run.get("local")
    if not direct or not local or not local["p50_s"]:
        return {}
    return {
        "task_p50_speedup": round(direct["p50_s"] / local["p50_s"], 2),
        "task_p95_speedup": round(direct["p95_s"] / local["p95_s"], 2) if local["p95_s"] else None,
        "success": [direct["success"], local["success"]],
        "parse_failure_rate": [direct["parse_failure_rate"], local["parse_failure_rate"]],
    }


def results_table(results: dict[str, Any]) -> Any:
    from rich.table import Table

    table = Table(
        "upstream",
        "condition",
        "tasks",
        "success",
        "task p50 s",
        "task p95 s",
        "steps local / gen / fallback",
        "parse failures",
        title="end-to-end: the travel agent's task set",
    )
    for upstream, run in results["runs"].items():
        for condition in CONDITIONS:
            s = run.get(condition)
            if not s:
                continue
            paths = s["paths"]
            served = " / ".join(str(paths.get(p, 0)) for p in ("local", "generative", "fallback"))
            table.add_row(
                upstream,
                condition,
                str(s["tasks"]),
                f"{s['success']:.0%}",
                f"{s['p50_s']:.2f}",
                f"{s['p95_s']:.2f}",
                served if "direct" not in paths else f"{paths['direct']} direct",
                f"{s['parse_failure_rate']:.1%}",
            )
        r = results["ratios"].get(upstream)
        if r:
            table.add_row(
                upstream,
                "[bold]direct → local[/bold]",
                "",
                "",
                f"{r['task_p50_speedup']:g}×",
                f"{r['task_p95_speedup']:g}×" if r["task_p95_speedup"] else "",
                "",
                "",
            )
    table.add_row("published", "generate → choose", "", "", "21 → 2.1 (10×)", "", "", "25% → 0.5%")
    return table
