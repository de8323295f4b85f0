"""`shadowswitch bench scaling`: the local engine behind a real `shadowswitch serve`.

Decision latency and throughput as offered tools grow (past `max_candidates` the engine
shortlists by embedding first: a two-level choice) and as concurrency grows; the server's
RSS with the embedded models loaded, and its start-up time to /readyz.
"""

from __future__ import annotations

import asyncio
import itertools
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import yaml
from rich.console import Console
from rich.table import Table

from bench.bfcl.proxy import free_port
from bench.bfcl.results import git_commit, machine_info, write_results
from bench.overhead.processes import pss_bytes, rss_bytes, started, upstream_started
from bench.overhead.targets import KEY_ENV, bench_env
from bench.scaling.simple import SimpleTraffic
from bench.scaling.tools import ScalingRequest, requests_with_tools

console = Console(width=None if Console().is_terminal else 140)
TASK = "scaling"
MAX_CANDIDATES = 8
# What the engine batches (shadowswitch/engines/local/runtime/worker.py and decider.py).
BATCHING = (
    "One engine thread per model; requests queued while it works form the next batch (up to 8). "
    "A batch shares one encoder pass (the queries and any candidate texts not yet cached); the "
    "language-model scoring and argument filling then run request by request."
)

TRAFFIC = {
    "bfcl": "BFCL live_simple and live_multiple questions, each sent once; distractors from their tools",
    "simple": "generated (bench/scaling/simple.py): the same 8 tools on every request, 1-3 values each, "
    "stated in the user's text; every text sent once",
}


@dataclass
class ScalingConfig:
    out: Path
    quick: bool = False
    tools: tuple[int, ...] = (2, 4, 8, 16, 32, 64)
    concurrencies: tuple[int, ...] = (1, 4, 16, 64)
    per_size: int | None = None  # requests per tool count (default by --quick)
    per_concurrency: int | None = None  # requests per concurrency level, at least the level itself
    concurrency_tools: int = 8
    workers: tuple[int, ...] = (1,)  # `serve --workers N`, each measured in turn, side by side
    time_budget_ms: int | None = None  # the policy's engine.time_budget_ms (None: its default)
    precisions: tuple[str, ...] = ()  # engine.precision, each measured in turn (empty: the default)
    traffic: str = "bfcl"  # bfcl: BFCL live questions, each its own tool; simple: simple.py's 8 tools
    sources: tuple[Path, ...] = ()  # checkouts whose shadowswitch is served, each in turn (empty: this one)
    torch_threads: tuple[int, ...] = ()  # SHADOWSWITCH_TORCH_THREADS, each in turn (empty: the default)

    def size_count(self) -> int:
        return self.per_size or (6 if self.quick else 40)

    def concurrency_count(self, level: int) -> int:
        return max(level, self.per_concurrency or (16 if self.quick else 128))


def write_policies(
    folder: Path, upstream_v1: str, time_budget_ms: int | None = None, precision: str | None = None
) -> Path:
    """Canary 100%, thresholds 0: every request is decided (and answered) locally, unless it
    runs past the time budget."""
    folder.mkdir(parents=True, exist_ok=True)
    upstream = {"model": "openai/bench", "api_base": upstream_v1, "api_key_env": KEY_ENV}
    (folder / "_defaults.yaml").write_text(yaml.safe_dump({"upstream": upstream}))
    policy = {
        "task_type": TASK,
        "description": "Local engine scaling benchmark.",
        "match": {"model": TASK},
        "rollout": {"mode": "canary", "percent": 100, "compare_percent": 0},
        "engine": {"max_candidates": MAX_CANDIDATES, "min_confidence": 0, "min_margin": 0, "certify": False}
        | ({"time_budget_ms": time_budget_ms} if time_budget_ms else {})
        | ({"precision": precision} if precision else {}),
        "breaker": {"consecutive_failures": 1000, "reprobe_after_s": 0},
    }
    (folder / f"{TASK}.yaml").write_text(yaml.safe_dump(policy))
    return folder


async def send_all(
    base: str, requests: list[ScalingRequest], concurrency: int, latencies: list[float] | None = None
) -> dict[str, Any]:
    """Send every request from `concurrency` clients; latency, throughput, paths, engine time.
    `latencies`: earlier rounds' (ms), which this one's join: its percentiles are over them all."""
    latencies = [] if latencies is None else latencies
    sent = len(latencies)
    paths: dict[str, int] = {}
    ids: list[str] = []
    right = errors = 0
    todo = iter(enumerate(requests))
    limits = httpx.Limits(max_connections=concurrency)
    async with httpx.AsyncClient(base_url=base, timeout=300, limits=limits) as client:

        async def worker() -> None:
            nonlocal right, errors
            for i, request in todo:
                headers = {"X-Shadowswitch-Session": f"s{i}"}
                begun = time.perf_counter()
                response = await client.post("/v1/chat/completions", json=request.body, headers=headers)
                if response.status_code != 200:
                    errors += 1
                    continue
                latencies.append((time.perf_counter() - begun) * 1000)
                path = response.headers.get("x-shadowswitch-path", "?")
                paths[path] = paths.get(path, 0) + 1
                ids.append(response.headers.get("x-shadowswitch-decision-id", ""))
                calls = response.json()["choices"][0]["message"].get("tool_calls") or []
                right += any(c["function"]["name"] == request.expected for c in calls)

        begun = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        wall = time.perf_counter() - begun
        records = [(await client.get(f"/v1/shadowswitch/decisions/{i}")).json() for i in ids if i]
    engine_ms = [_engine_ms(r) for r in records]
    return {
        "requests": len(requests),
        "errors": errors,
        "paths": paths,
        "right_tool": round(right / len(requests), 3) if requests else None,
        **_percentiles("latency", latencies),
        **_percentiles("engine", [m for m in engine_ms if m is not None]),
        "throughput_rps": round((len(latencies) - sent) / wall, 2) if wall else None,
        "profile_ms": _profile(records),
        "over_budget": sum(r.get("abstain_reason") == "time_budget" for r in records),
    }


def _profile(records: list[dict[str, Any]]) -> dict[str, float]:
    """Where the engine's time went: the mean milliseconds of each step over the decisions
    (candidates, scoring: encoder and ranking, arguments: the filler and its LM passes)."""
    laps: dict[str, list[float]] = {}
    for record in records:
        for lap, ms in (record.get("timings_ms") or {}).items():
            laps.setdefault(lap, []).append(float(ms))
    return {lap: round(sum(v) / len(records), 2) for lap, v in laps.items() if records}


def _engine_ms(record: dict[str, Any]) -> float | None:
    """The engine's own time for a decision (its record's timings), queueing excluded."""
    timings = record.get("timings_ms") or {}
    total = timings.get("total")
    return float(total) if isinstance(total, int | float) else None


def _percentiles(name: str, values: list[float]) -> dict[str, float | None]:
    if len(values) < 2:
        one = round(values[0], 2) if values else None
        return {f"{name}_p50_ms": one, f"{name}_p99_ms": one}
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return {f"{name}_p50_ms": round(cuts[49], 2), f"{name}_p99_ms": round(cuts[98], 2)}


def run_scaling(config: ScalingConfig) -> dict[str, Any]:
    started_at = time.monotonic()
    by_workers: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="ss-scaling-") as tmp:
        workdir = Path(tmp)
        with upstream_started(workdir) as upstream:
            for source in config.sources or (None,):  # one server after the other
                for precision in config.precisions or (None,):
                    folder = workdir / f"policies-{precision or 'default'}"
                    policies = write_policies(folder, upstream, config.time_budget_ms, precision)
                    for threads, workers in itertools.product(
                        config.torch_threads or (None,), config.workers
                    ):
                        run = _serve_and_send(config, workdir, policies, workers, source, threads)
                        run |= {"precision": precision} if precision else {}
                        run |= {"torch_threads": threads} if threads else {}
                        by_workers.append(run | ({"source": _described(source)} if source else {}))
    first = by_workers[0]
    results = {
        "benchmark": "scaling",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "git_commit": git_commit(),
        "machine": machine_info(),
        "config": {
            "quick": config.quick,
            "max_candidates": MAX_CANDIDATES,
            "traffic": config.traffic,
            "tools_source": TRAFFIC[config.traffic],
            "concurrency_tools": config.concurrency_tools,
            "scorer": "hybrid (policy default), thresholds 0",
            "time_budget_ms": config.time_budget_ms or "policy default",
            "workers": list(config.workers),
            "precisions": list(config.precisions) or "policy default",
            "sources": [_described(s) for s in config.sources] or "this checkout",
            "torch_threads": list(config.torch_threads) or "the default (the cores but one, at most 8)",
            "dtypes": _dtypes(),
        },
        "batching": BATCHING,
        "startup_to_readyz_s": first["startup_to_readyz_s"],
        "memory": first["memory"],
        "by_tools": first["by_tools"],
        "by_concurrency": first["by_concurrency"],
        "by_workers": by_workers,
        "duration_s": round(time.monotonic() - started_at, 1),
    }
    write_results(config.out, results)
    print_tables(results)
    console.print(f"wrote {config.out}")
    return results


def _dtypes() -> dict[str, str]:
    """The models' dtypes, the same for every worker count: left to the engine, a timing probe at
    start picks them, and on a busy machine it can pick float32 for one run and bfloat16 for the
    next, which alone moves memory by ~500 MB (float32 weights stay mapped from the cached file)."""
    from shadowswitch.engines.local.runtime.models import native_bf16

    dtype = "bfloat16" if native_bf16() else "float32"
    return {"SHADOWSWITCH_LM_DTYPE": dtype, "SHADOWSWITCH_ENCODER_DTYPE": dtype}


def _described(source: Path) -> str:
    """A checkout as a results file names it: its commit (a path would name this machine)."""
    return git_commit(source) or source.name


def _serve_and_send(
    config: ScalingConfig,
    workdir: Path,
    policies: Path,
    workers: int,
    source: Path | None = None,
    threads: int | None = None,
) -> dict[str, Any]:
    """One `serve --workers N` with the embedded models (`source`'s shadowswitch, else this
    checkout's): its memory, the tool-count runs, then the concurrency runs (after the same
    requests as every other server: the same caches)."""
    port = free_port()
    cmd = [sys.executable, "-m", "shadowswitch.cli", "serve", "--port", str(port), "--workers", str(workers)]
    cmd += [
        "--policies",
        str(policies),
        "--db",
        f"sqlite:///{workdir / f'scaling-{policies.name}-{workers}.db'}",
    ]
    cmd += ["--log-level", "warning"]
    base = f"http://127.0.0.1:{port}"
    console.print(
        f"starting shadowswitch serve --workers {workers} ({source or 'this checkout'}, threads {threads})…"
    )
    env = (bench_env(source) if source else bench_env()) | _dtypes()
    env |= {"SHADOWSWITCH_TORCH_THREADS": str(threads)} if threads else {}
    by_tools: list[dict[str, Any]] = []
    by_concurrency: list[dict[str, Any]] = []
    with started(
        cmd,
        f"{base}/readyz",
        workdir / f"serve-{policies.name}-{workers}.log",
        env,
        timeout_s=900,
    ) as server:
        memory = {"rss_ready_mb": _mb(rss_bytes(server.pid)), "pss_ready_mb": _mb(pss_bytes(server.pid))}
        console.print(f"ready in {server.ready_s:.1f} s, RSS {memory['rss_ready_mb']} MB")
        fresh = SimpleTraffic() if config.traffic == "simple" else Fresh()  # never sent before
        asyncio.run(send_all(base, fresh.take(2, 8), 1))  # warm-up
        for tools in config.tools:
            row = {"tools": tools, **_run(base, fresh.take(config.size_count(), tools), 1)}
            by_tools.append(row)
            console.print(f"  tools {tools:>2}: {_line(row)}")
        for level in config.concurrencies:
            requests = fresh.take(config.concurrency_count(level), config.concurrency_tools)
            row = {"concurrency": level, **_run(base, requests, level)}
            by_concurrency.append(row)
            console.print(f"  concurrency {level:>2}: {_line(row)}")
        memory["rss_after_mb"] = _mb(rss_bytes(server.pid))
        memory["pss_after_mb"] = _mb(pss_bytes(server.pid))
        return {
            "workers": workers,
            "startup_to_readyz_s": round(server.ready_s, 2),
            "memory": memory,
            "by_tools": by_tools,
            "by_concurrency": by_concurrency,
        }


class Fresh:
    """Requests with questions never sent before in this run (the next ones of the files)."""

    def __init__(self) -> None:
        self.next = 0

    def take(self, count: int, tools: int) -> list[ScalingRequest]:
        requests = requests_with_tools(count, tools, seed=self.next, start=self.next)
        self.next += count
        return requests


def _run(base: str, requests: list[ScalingRequest], concurrency: int) -> dict[str, Any]:
    return asyncio.run(send_all(base, requests, concurrency))


def _mb(value: int) -> float:
    return round(value / 2**20, 1)


def _line(row: dict[str, Any]) -> str:
    return (
        f"p50 {row['latency_p50_ms']} ms, p99 {row['latency_p99_ms']} ms "
        f"(engine p50 {row['engine_p50_ms']} ms), "
        f"{row['throughput_rps']} req/s, paths {row['paths']}, right tool {row['right_tool']}, "
        f"engine ms by step {row['profile_ms']}"
    )


def print_tables(results: dict[str, Any]) -> None:
    for key, label in (("by_tools", "tools"), ("by_concurrency", "concurrency")):
        table = Table(label, *COLUMNS, title=f"local engine by {label}")
        for row in results[key]:
            table.add_row(str(row[label]), *_cells(row))
        console.print(table)
    memory = results["memory"]
    console.print(
        f"start-up to /readyz {results['startup_to_readyz_s']} s; RSS {memory['rss_ready_mb']} MB ready, "
        f"{memory['rss_after_mb']} MB after the runs"
    )
    if len(results["by_workers"]) > 1:
        table = Table(
            "workers", "RSS ready", "PSS ready", "PSS after", *COLUMNS, title="by workers and precision"
        )
        for run in results["by_workers"]:
            m = run["memory"]
            for row in run["by_concurrency"]:
                sizes = (_num(m[k]) for k in ("rss_ready_mb", "pss_ready_mb", "pss_after_mb"))
                label = f"{run['workers']} {run.get('precision', '')} (c{row['concurrency']})"
                label += f" {run['source']}" if "source" in run else ""
                label += f" threads {run['torch_threads']}" if "torch_threads" in run else ""
                table.add_row(label, *sizes, *_cells(row))
        console.print(table)
    console.print(f"batching: {results['batching']}")


COLUMNS = ("p50 ms", "p99 ms", "engine p50", "req/s", "local", "over budget", "right tool", "errors")


def _cells(row: dict[str, Any]) -> list[str]:
    times = [_num(row[k]) for k in ("latency_p50_ms", "latency_p99_ms", "engine_p50_ms", "throughput_rps")]
    local = f"{row['paths'].get('local', 0)}/{row['requests']}"
    return [*times, local, str(row["over_budget"]), _num(row["right_tool"]), str(row["errors"])]


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:,.2f}"
