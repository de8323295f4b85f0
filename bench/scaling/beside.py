"""`shadowswitch bench beside`: no agent's learning stalls another's decisions.

Short requests (the simple traffic's 8 tools, every text new) served locally in canary, 4 at a
time, first alone, then while a heavy agent in shadow with learning on sends its steps 2 at a
time: a tool whose arguments nest arrays of objects and about 6,000 tokens of conversation each
(bench/scaling/heavy.py), the upstream answering with the nested call, so that learning has it to
learn. Reported: the short requests' p50/p99 alone and beside, and for each heavy step how long
after its response its shadow run was recorded. The targets: the short p99 beside under 1 s (or
at most 1.5x alone), every heavy shadow run recorded within 5 s of its request. The short requests
go on (in rounds) until the last heavy shadow run is in.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import yaml
from rich.table import Table

from bench.bfcl.proxy import free_port
from bench.bfcl.results import git_commit, machine_info, write_results
from bench.overhead.processes import started, upstream_started
from bench.overhead.targets import KEY_ENV, bench_env
from bench.scaling.heavy import heavy_step
from bench.scaling.run import console, send_all, write_policies
from bench.scaling.simple import SimpleTraffic

HEAVY_TASK = "heavy_agent"
LAG_TARGET_S = 5.0
P99_TARGET_S = 1.0
PACE_S = 2.0  # between a heavy step's answer and the conversation's next step


def run_beside(out: Path, short: int = 96, steps: int = 12) -> dict[str, Any]:
    begun = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ss-beside-") as tmp:
        workdir = Path(tmp)
        with upstream_started(workdir) as upstream:
            policies = _policies(workdir / "policies", upstream)
            port = free_port()
            cmd = [sys.executable, "-m", "shadowswitch.cli", "serve", "--port", str(port)]
            cmd += ["--policies", str(policies), "--db", f"sqlite:///{workdir / 'beside.db'}"]
            cmd += ["--log-level", "warning"]
            base = f"http://127.0.0.1:{port}"
            console.print("starting shadowswitch serve…")
            with started(cmd, f"{base}/readyz", workdir / "serve.log", bench_env(), timeout_s=900):
                figures = asyncio.run(_measure(base, SimpleTraffic(), short, steps))
    results = {
        "benchmark": "beside",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "git_commit": git_commit(),
        "machine": machine_info(),
        "config": {
            "short": f"{short} requests, 4 at a time, simple traffic, canary 100%, policy default budget",
            "heavy": f"{steps} steps of 2 conversations, each step {PACE_S:g} s after the last one's "
            "answer, shadow, learn: true, about 6,000 tokens each",
            "targets": {"short_p99_s": P99_TARGET_S, "or_p99_vs_alone": 1.5, "shadow_lag_s": LAG_TARGET_S},
        },
        **figures,
        "duration_s": round(time.monotonic() - begun, 1),
    }
    write_results(out, results)
    _print(results)
    console.print(f"wrote {out}")
    return results


def _policies(folder: Path, upstream_v1: str) -> Path:
    write_policies(folder, upstream_v1)
    heavy = {
        "task_type": HEAVY_TASK,
        "description": "A customer-service agent with long conversations and nested arguments.",
        "match": {"model": "heavy-agent"},
        "rollout": {"mode": "shadow"},
        "engine": {"learn": True},
        # the upstream answers a model of this name with the step's nested call (heavy.answer)
        "upstream": {"model": "openai/heavy-agent", "api_base": upstream_v1, "api_key_env": KEY_ENV},
    }
    (folder / f"{HEAVY_TASK}.yaml").write_text(yaml.safe_dump(heavy))
    return folder


async def _measure(base: str, short: SimpleTraffic, count: int, steps: int) -> dict[str, Any]:
    await send_all(base, short.take(4), 1)  # warm: the tools' vectors, the LM prefix
    console.print("short requests alone…")
    alone = await send_all(base, short.take(count), 4)
    console.print(f"short requests beside the heavy agent ({steps} steps)…")
    heavy = asyncio.create_task(_heavy_agent(base, steps))
    await asyncio.sleep(1.0)  # its first steps in the engine's queue
    begun, latencies = time.perf_counter(), list[float]()
    rounds: list[dict[str, Any]] = []
    while not rounds or not heavy.done():  # short requests as long as the heavy agent's work goes on
        rounds.append(await send_all(base, short.take(count), 4, latencies))  # percentiles: every round
    beside = rounds[-1] | {
        "rounds": len(rounds),
        "requests": len(latencies),
        "errors": sum(r["errors"] for r in rounds),
        "paths": dict(sum((Counter(r["paths"]) for r in rounds), Counter())),
        "throughput_rps": round(len(latencies) / (time.perf_counter() - begun), 2),
        "over_budget": sum(r["over_budget"] for r in rounds),
    }
    return {"short_alone": alone, "short_beside": beside, "heavy": await heavy}


async def _heavy_agent(base: str, steps: int, pace_s: float = PACE_S) -> dict[str, Any]:
    """Two conversations, each sending its next step `pace_s` after the last one's answer (the
    time a user or a tool takes), and every step's record watched until its shadow run is in."""
    lags: list[float] = []
    responses: list[float] = []
    shadows: list[dict[str, Any]] = []
    watchers: list[asyncio.Task[None]] = []
    todo = iter(range(steps))
    async with httpx.AsyncClient(base_url=base, timeout=300) as client:

        async def watch(decision_id: str, begun: float) -> None:
            shadows.append(await _shadow_of(client, decision_id))
            lags.append(time.perf_counter() - begun)

        async def agent() -> None:
            for i in todo:
                begun = time.perf_counter()
                response = await client.post("/v1/chat/completions", json=heavy_step(10_000 + i))
                responses.append(time.perf_counter() - begun)
                decision_id = response.headers.get("x-shadowswitch-decision-id", "")
                watchers.append(asyncio.create_task(watch(decision_id, begun)))
                await asyncio.sleep(pace_s)

        await asyncio.gather(agent(), agent())
        await asyncio.gather(*watchers)
    engine = [float((s.get("timings_ms") or {}).get("total") or 0) for s in shadows]
    return {
        "steps": steps,
        "pace_s": pace_s,
        "response_p50_s": round(statistics.median(responses), 3) if responses else None,
        "shadow_recorded_after_request_s": sorted(round(x, 2) for x in lags),
        "shadow_lag_max_s": round(max(lags), 2) if lags else None,
        "shadow_engine_ms": sorted(round(x) for x in engine),
        "shadow_outcomes": dict(Counter(str(s.get("abstain_reason") or s.get("name")) for s in shadows)),
    }


async def _shadow_of(client: httpx.AsyncClient, decision_id: str, timeout_s: float = 300) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        record = (await client.get(f"/v1/shadowswitch/decisions/{decision_id}")).json()
        if record.get("shadow"):
            return dict(record["shadow"])
        await asyncio.sleep(0.2)
    return {"abstain_reason": "no shadow run recorded"}


def _print(results: dict[str, Any]) -> None:
    table = Table(title="short requests beside a heavy agent learning in shadow")
    for column in ("", "p50 ms", "p99 ms", "req/s", "local", "over budget"):
        table.add_column(column)
    for name in ("short_alone", "short_beside"):
        row = results[name]
        local = (row.get("paths") or {}).get("local", 0)
        table.add_row(
            name.replace("_", " "),
            str(row.get("latency_p50_ms")),
            str(row.get("latency_p99_ms")),
            str(row.get("throughput_rps")),
            f"{local}/{row.get('requests')}",
            str(row.get("over_budget")),
        )
    console.print(table)
    heavy = results["heavy"]
    console.print(
        f"heavy steps: response p50 {heavy['response_p50_s']} s; shadow runs recorded "
        f"{heavy['shadow_recorded_after_request_s']} s after their requests "
        f"(max {heavy['shadow_lag_max_s']}); "
        f"engine ms {heavy['shadow_engine_ms']}; {heavy['shadow_outcomes']}"
    )
