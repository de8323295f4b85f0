"""`shadowswitch bench remote`: the engine over its models in-process and behind serving engines.

The same BFCL `live_simple` development requests (8 offered tools) go to two engines in one
process, all to one and then all to the other: the embedded one, and one whose encoder is behind Infinity
and whose LM is behind vLLM's CPU build (`engine.backend: remote`), both serving the embedded
models on this machine. Per decision: latency, and whether the two decided alike (the same tool,
arguments and abstention).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console

from bench.bfcl.proxy import free_port
from bench.bfcl.results import git_commit, machine_info, write_results
from bench.scaling.tools import requests_with_tools
from bench.serving import infinity, vllm

console = Console(width=None if Console().is_terminal else 140)
TOOLS = 8


def run_remote(out: Path, count: int) -> dict[str, Any]:
    from shadowswitch.engines.local import create_engine
    from shadowswitch.policy.models import ModelSource, Policy
    from shadowswitch.request import ChatView

    policy = Policy.model_validate({"task_type": "bench", "engine": {"min_confidence": 0, "min_margin": 0}})
    requests = [ChatView.parse(r.body) for r in requests_with_tools(count, TOOLS, seed=7)]
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ss-remote-") as tmp:
        encoder_port, lm_port = free_port(), free_port()
        console.print("starting Infinity (encoder) and vLLM (LM) on the CPU…")
        with infinity(encoder_port, Path(tmp)), vllm(lm_port, Path(tmp)):
            source = ModelSource(
                "embedded", f"http://127.0.0.1:{encoder_port}", f"http://127.0.0.1:{lm_port}/v1"
            )
            engines = {"embedded": create_engine("embedded"), "remote": create_engine(source)}
            for engine in engines.values():  # first calls compile kernels and fill caches
                engine.decide_sync(requests[0], policy)
            # One engine's pass, then the other's: a server busy after its answer would slow an
            # embedded decision made in between.
            latency: dict[str, list[float]] = {name: [] for name in engines}
            decided: dict[str, list[tuple[Any, ...]]] = {name: [] for name in engines}
            for name, engine in engines.items():
                for request in requests:
                    begun = time.perf_counter()
                    choice = engine.decide_sync(request, policy)
                    latency[name].append((time.perf_counter() - begun) * 1000)
                    decided[name].append((choice.kind, choice.name, choice.arguments, choice.abstain_reason))
            same = sum(a == b for a, b in zip(decided["embedded"], decided["remote"], strict=True))
            for engine in engines.values():
                engine.close()
    results = {
        "benchmark": "remote",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "git_commit": git_commit(),
        "machine": machine_info(),
        "config": {
            "requests": len(requests),
            "offered_tools": TOOLS,
            "servers": "Infinity 0.0.78 (torch, CPU) and vLLM CPU 0.32.0 (bfloat16, eager) on this machine",
            "order": "every request to the embedded engine, then every request to the remote one",
        },
        "same_decision": round(same / len(requests), 3),
        "by_engine": {name: _percentiles(values) for name, values in latency.items()},
        "duration_s": round(time.monotonic() - began, 1),
    }
    write_results(out, results)
    _print(results)
    console.print(f"wrote {out}")
    return results


def _percentiles(values: list[float]) -> dict[str, float]:
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return {"p50_ms": round(cuts[49], 1), "p90_ms": round(cuts[89], 1), "p99_ms": round(cuts[98], 1)}


def _print(results: dict[str, Any]) -> None:
    for name, row in results["by_engine"].items():
        console.print(f"  {name:>8}: p50 {row['p50_ms']} ms, p90 {row['p90_ms']} ms, p99 {row['p99_ms']} ms")
    console.print(f"  same decision: {results['same_decision']:.1%} of {results['config']['requests']}")
