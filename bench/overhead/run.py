"""`shadowswitch bench overhead`: every server in one run, against the same 20 ms upstream.

For each target, streamed and not, at each concurrency: latency p50/p99, throughput, and
the CPU seconds per request of the server's processes (and of the upstream's, for scale).
Added latency is a target's percentile minus the direct one's in the same cell.

Every server is up for the whole run and each cell's requests are sent in `rounds`, the
targets taking turns within a round (in another order each round): measured one after
another, minutes apart, the same server's cell moved on shared cores by more than the gaps
between servers.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from rich.console import Console

from bench.bfcl.proxy import free_port
from bench.bfcl.results import git_commit, machine_info, write_results
from bench.overhead import targets
from bench.overhead.load import Sample, run_load
from bench.overhead.processes import Server, cpu_seconds, started
from bench.overhead.targets import Target

console = Console(width=None if Console().is_terminal else 140)
KEYS = ("plain", "rpm")  # --keys: a key alone (hash and cache), and one counted in the database


@dataclass
class OverheadConfig:
    out: Path
    quick: bool = False
    delay_ms: float = 20.0
    concurrencies: tuple[int, ...] = (1, 32)
    requests: dict[int, int] = field(default_factory=dict)  # per concurrency; default by --quick
    warmup: int = 20
    rounds: int = 3  # each cell's requests in this many turns, the targets alternating
    workers: tuple[int, ...] = (1, 2)
    litellm_proxy: bool = True
    keys: bool = False  # also one worker with an agent key, and with a rate-limited one
    proxy_python: str | None = None  # found at start: the Python that runs LiteLLM's proxy
    proxy_litellm: str | None = None  # ... and its litellm version

    def count(self, concurrency: int) -> int:
        if concurrency in self.requests:
            return self.requests[concurrency]
        if concurrency == 1:
            return 60 if self.quick else 400
        return 300 if self.quick else 3000


def target_list(config: OverheadConfig) -> tuple[list[Target], dict[str, str]]:
    chosen = [Target("direct", "direct"), Target("floor", "floor")]
    chosen += [Target(f"shadowswitch-{w}w", "shadowswitch", w) for w in config.workers]
    if config.keys:
        chosen += [
            Target(f"shadowswitch-1w-key{'-' + k if k != 'plain' else ''}", "shadowswitch", 1, k)
            for k in KEYS
        ]
    skipped = {}
    if not config.litellm_proxy:
        skipped["litellm-proxy"] = "not asked for (--no-litellm-proxy)"
        return chosen, skipped
    python, detail = targets.litellm_proxy_python()
    if python is None:
        skipped["litellm-proxy"] = detail
    else:
        config.proxy_python, config.proxy_litellm = python, detail
        chosen.append(Target("litellm-proxy", "litellm-proxy"))
    return chosen, skipped


@contextlib.contextmanager
def serving(
    target: Target, workdir: Path, upstream_v1: str, proxy_python: str | None
) -> Iterator[tuple[str, Server | None, str]]:
    """The target's chat completions URL, its server (None: the upstream itself), the bearer to send."""
    if target.kind == "direct":
        yield upstream_v1 + "/chat/completions", None, targets.PROXY_KEY
        return
    port = free_port()
    url = f"http://127.0.0.1:{port}/v1/chat/completions"
    if target.kind == "floor":
        with targets.floor(workdir, upstream_v1, port) as server:
            yield url, server, targets.PROXY_KEY
        return
    if target.kind == "shadowswitch":
        with targets.shadowswitch(workdir, upstream_v1, port, target.workers, key=target.key) as (
            server,
            key,
        ):
            yield url, server, key or targets.PROXY_KEY
        return
    assert proxy_python is not None
    with targets.litellm_proxy(workdir, upstream_v1, port, proxy_python) as server:
        yield url, server, targets.PROXY_KEY


@dataclass
class Live:
    """A target being measured: where to send, its server (None: the upstream itself), the
    bearer, and what its current cell has gathered so far."""

    target: Target
    url: str
    server: Server | None
    key: str
    sample: Sample = field(default_factory=Sample)
    cpu_s: tuple[float, float] = (0.0, 0.0)  # the server's, the upstream's

    def start_cell(self) -> None:
        self.sample, self.cpu_s = Sample(), (0.0, 0.0)

    def measure(self, upstream: Server, stream: bool, concurrency: int, n: int, warmup: int) -> None:
        """One turn: `warmup` requests unmeasured, then `n` added to the cell."""
        if warmup:
            asyncio.run(run_load(self.url, stream, concurrency, max(warmup, concurrency), self.key))
        before = (cpu_seconds(self.server.pid) if self.server else 0.0, cpu_seconds(upstream.pid))
        got: Sample = asyncio.run(run_load(self.url, stream, concurrency, n, self.key))
        after = (cpu_seconds(self.server.pid) if self.server else 0.0, cpu_seconds(upstream.pid))
        self.sample.latencies_ms += got.latencies_ms
        self.sample.errors += got.errors
        self.sample.first_error = self.sample.first_error or got.first_error
        self.sample.wall_s += got.wall_s
        self.cpu_s = (self.cpu_s[0] + after[0] - before[0], self.cpu_s[1] + after[1] - before[1])

    def cell(self, stream: bool, concurrency: int, n: int) -> dict[str, Any]:
        sample, done = self.sample, max(len(self.sample.latencies_ms), 1)
        return {
            "target": self.target.name,
            "workers": self.target.workers,
            "stream": stream,
            "concurrency": concurrency,
            "requests": n,
            "ok": len(sample.latencies_ms),
            "errors": sample.errors,
            "first_error": sample.first_error,
            "p50_ms": _round(sample.percentile(50)),
            "p99_ms": _round(sample.percentile(99)),
            "throughput_rps": round(sample.throughput, 1),
            "server_cpu_ms_per_request": round(self.cpu_s[0] * 1000 / done, 2) if self.server else None,
            "upstream_cpu_ms_per_request": round(self.cpu_s[1] * 1000 / done, 2),
        }


def measure_cell(
    live: list[Live], upstream: Server, stream: bool, concurrency: int, n: int, config: OverheadConfig
) -> list[dict[str, Any]]:
    """One cell for every target: `n` requests each, in `config.rounds` turns, the targets in
    another order each round (rotated), so that what the shared machine does meanwhile falls on
    all of them alike."""
    rounds = max(1, min(config.rounds, n))
    for one in live:
        one.start_cell()
    for r in range(rounds):
        share = n // rounds + (1 if r < n % rounds else 0)
        for one in live[r % len(live) :] + live[: r % len(live)]:
            one.measure(upstream, stream, concurrency, share, config.warmup if r == 0 else 0)
    return [one.cell(stream, concurrency, n) for one in live]


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def add_overheads(cells: list[dict[str, Any]]) -> None:
    """Each cell's added p50/p99 over the direct cell with the same stream and concurrency."""
    direct = {(c["stream"], c["concurrency"]): c for c in cells if c["target"] == "direct"}
    for cell in cells:
        base = direct.get((cell["stream"], cell["concurrency"]))
        for q in ("p50", "p99"):
            ours, theirs = cell[f"{q}_ms"], base and base[f"{q}_ms"]
            cell[f"added_{q}_ms"] = round(ours - theirs, 2) if ours is not None and theirs else None


def summarise(cells: list[dict[str, Any]], concurrency: int) -> dict[str, Any]:
    """shadowswitch (one worker) against the floor (goal: ≤ 1.1× its added latency, ≥ 0.95× its
    throughput) and LiteLLM's proxy (goal: ≤ 0.5× latency, ≥ 2× throughput)."""
    out: dict[str, Any] = {}
    for stream in (False, True):
        key = "stream" if stream else "non_stream"

        def cell(target: str, conc: int, s: bool = stream) -> dict[str, Any] | None:
            return next(
                (c for c in cells if c["target"] == target and c["stream"] == s and c["concurrency"] == conc),
                None,
            )

        ours, theirs = cell("shadowswitch-1w", 1), cell("litellm-proxy", 1)
        ours_max, theirs_max = cell("shadowswitch-1w", concurrency), cell("litellm-proxy", concurrency)
        two = cell("shadowswitch-2w", concurrency)
        entry: dict[str, Any] = {}
        if ours and theirs and ours["added_p50_ms"] is not None and theirs["added_p50_ms"]:
            entry["added_p50_ratio_vs_litellm_proxy"] = round(
                ours["added_p50_ms"] / theirs["added_p50_ms"], 2
            )
        if ours_max and theirs_max and theirs_max["throughput_rps"]:
            ratio = ours_max["throughput_rps"] / theirs_max["throughput_rps"]
            entry["throughput_ratio_vs_litellm_proxy"] = round(ratio, 2)
        floor, floor_max = cell("floor", 1), cell("floor", concurrency)
        if ours and floor and ours["added_p50_ms"] is not None and floor["added_p50_ms"]:
            entry["added_p50_ratio_vs_floor"] = round(ours["added_p50_ms"] / floor["added_p50_ms"], 2)
        if ours_max and floor_max and floor_max["throughput_rps"]:
            entry["throughput_ratio_vs_floor"] = round(
                ours_max["throughput_rps"] / floor_max["throughput_rps"], 2
            )
        if ours_max and two and ours_max["throughput_rps"]:
            entry["two_worker_scaling"] = round(two["throughput_rps"] / ours_max["throughput_rps"], 2)
        out[key] = entry
    return out


def versions() -> dict[str, str | None]:
    def version(name: str) -> str | None:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return None

    return {p: version(p) for p in ("litellm", "fastapi", "starlette", "uvicorn", "aiohttp", "httpx")}


def run_overhead(config: OverheadConfig) -> dict[str, Any]:
    chosen, skipped = target_list(config)
    for name, reason in skipped.items():
        console.print(f"[yellow]skipping {name}: {reason}[/yellow]")
    cells: list[dict[str, Any]] = []
    started_at = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ss-overhead-") as tmp:
        workdir = Path(tmp)
        port = free_port()
        cmd = [sys.executable, "-m", "bench.overhead.upstream", "--port", str(port)]
        cmd += ["--delay-ms", str(config.delay_ms)]
        with (
            started(cmd, f"http://127.0.0.1:{port}/v1/models", workdir / "upstream.log") as upstream,
            contextlib.ExitStack() as servers,
        ):
            upstream_v1 = f"http://127.0.0.1:{port}/v1"
            live = []
            for target in chosen:  # all up at once: their cells are measured in alternate turns
                url, server, key = servers.enter_context(
                    serving(target, workdir, upstream_v1, config.proxy_python)
                )
                live.append(Live(target, url, server, key))
            for stream in (False, True):
                for conc in config.concurrencies:
                    console.print(f"[bold]{'streamed' if stream else 'JSON'}, concurrency {conc}[/bold]")
                    for cell in measure_cell(live, upstream, stream, conc, config.count(conc), config):
                        cells.append(cell)
                        console.print(f"  {_line(cell)}")
    add_overheads(cells)
    results = {
        "benchmark": "overhead",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "git_commit": git_commit(),
        "machine": machine_info(),
        "versions": versions() | {"litellm_in_litellm_proxy": config.proxy_litellm},
        "config": {
            "upstream_delay_ms": config.delay_ms,
            "concurrencies": list(config.concurrencies),
            "requests": {str(c): config.count(c) for c in config.concurrencies},
            "quick": config.quick,
            "rounds": config.rounds,
            "order": "every server up at once; each cell's requests in rounds, the servers taking turns",
            "client": "aiohttp, closed loop, in the benchmark's own process",
            "floor": "bare FastAPI, one route awaiting litellm.acompletion (bench/overhead/floor.py)",
            "shadowswitch": "serve --no-models, a mode-off policy matched by model, SQLite records",
        },
        "skipped": skipped,
        "cells": cells,
        "summary": summarise(cells, max(config.concurrencies)),
        "duration_s": round(time.monotonic() - started_at, 1),
    }
    write_results(config.out, results)
    print_table(results)
    console.print(f"wrote {config.out}")
    return results


def _line(cell: dict[str, Any]) -> str:
    kind = "stream" if cell["stream"] else "json  "
    cpu = cell["server_cpu_ms_per_request"]
    return (
        f"{cell['target']:<16} {kind} c={cell['concurrency']:<3} "
        f"p50 {cell['p50_ms']} ms  p99 {cell['p99_ms']} ms  "
        f"{cell['throughput_rps']} req/s  cpu {cpu} ms/req  errors {cell['errors']}"
    )


def print_table(results: dict[str, Any]) -> None:
    from rich.table import Table

    table = Table(
        "target",
        "stream",
        "conc",
        "p50 ms",
        "p99 ms",
        "added p50",
        "added p99",
        "req/s",
        "CPU ms/req",
        "errors",
        title="proxy overhead (20 ms upstream)",
    )
    for c in results["cells"]:
        table.add_row(
            c["target"],
            "yes" if c["stream"] else "no",
            str(c["concurrency"]),
            _num(c["p50_ms"]),
            _num(c["p99_ms"]),
            _num(c["added_p50_ms"]),
            _num(c["added_p99_ms"]),
            _num(c["throughput_rps"]),
            _num(c["server_cpu_ms_per_request"]),
            str(c["errors"]),
        )
    console.print(table)
    console.print(f"summary (shadowswitch 1 worker vs the floor and LiteLLM proxy): {results['summary']}")


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:,.1f}"
