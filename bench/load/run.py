"""Run the load benchmark: a scripted upstream and `shadowswitch serve` as real processes on
loopback, a warm-up, the measured run, a direct-to-upstream baseline; RSS of the proxy's
processes before and after; the rows counted by decision id once the proxy has stopped."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import yaml

from bench.bfcl.proxy import free_port, log_tail
from bench.bfcl.results import git_commit, machine_info, shown_path
from bench.load import traffic
from bench.load.records import check_records


@dataclass
class LoadConfig:
    requests: int = 10_000
    concurrency: int = 64
    warmup: int = 500
    baseline: int = 1_000  # pass-through requests straight to the upstream
    workers: int = 1
    models: bool = True  # False: `serve --no-models` (local requests are answered generatively)
    db: str | None = None  # default: SQLite in a temp dir
    out: Path = Path("bench/results/load.json")


def run_load(config: LoadConfig) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="shadowswitch-load-") as tmp:
        work = Path(tmp)
        db_url = config.db or f"sqlite:///{work / 'load.db'}"
        with upstream(work) as upstream_url, proxy(work, upstream_url, db_url, config) as (base, pid):
            rss_start = rss_mb(pid)
            warm = asyncio.run(traffic.run(base, config.warmup, config.concurrency))
            rss_warm = rss_mb(pid)
            started = time.perf_counter()
            measured = asyncio.run(traffic.run(base, config.requests, config.concurrency, config.warmup))
            seconds = time.perf_counter() - started
            rss_end = rss_mb(pid)
            baseline = asyncio.run(traffic.direct(upstream_url, config.baseline, config.concurrency))
        records = check_records(db_url, warm + measured)  # the proxy has stopped: all flushed
    return {
        "benchmark": "load",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "git_commit": git_commit(),
        "machine": machine_info() | {"versions": versions()},
        "config": {
            **asdict(config),
            "out": shown_path(config.out),
            "db": _db_kind(config.db),
        },
        "mix": traffic.MIX,
        "throughput_rps": round(config.requests / seconds, 1),
        "seconds": round(seconds, 1),
        "measured": traffic.summary(measured),
        "warmup": traffic.summary(warm),
        "pass_through_p99_ms": traffic.summary(measured)["by_kind"]["pass_through"]["p99_ms"],
        "direct_to_upstream": traffic.summary(baseline)["by_kind"]["pass_through"],
        "records": records,
        "rss_mb": {"after_start": rss_start, "after_warmup": rss_warm, "after_run": rss_end},
        "rss_growth_after_warmup_mb": round(rss_end - rss_warm, 1),
    }


def _db_kind(url: str | None) -> str:
    return url.split(":", 1)[0] if url else "sqlite (temp dir)"  # never the URL: it may hold a password


def write(results: dict[str, Any], out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")


@contextmanager
def upstream(work: Path) -> Iterator[str]:
    """The scripted upstream in its own process (its CPU is not the proxy's), idle keep-alive long."""
    port = free_port()
    command = [sys.executable, "-m", "uvicorn", "examples.upstreams.scripted:create_upstream", "--factory"]
    command += ["--port", str(port), "--log-level", "warning", "--timeout-keep-alive", "600"]
    with run_process(command, work / "upstream.log") as process:
        url = f"http://127.0.0.1:{port}/v1"
        wait_for(url + "/models", process, 60, work / "upstream.log")
        yield url


@contextmanager
def proxy(work: Path, upstream_url: str, db_url: str, config: LoadConfig) -> Iterator[tuple[str, int]]:
    """`shadowswitch serve` with the load policies; yields its base URL and pid."""
    folder = write_policies(work / "policies", upstream_url)
    port = free_port()
    command = [sys.executable, "-m", "shadowswitch.cli", "serve", "--port", str(port)]
    command += ["--policies", str(folder), "--db", db_url, "--log-level", "warning"]
    command += [] if config.models else ["--no-models"]
    command += ["--workers", str(config.workers)] if config.workers > 1 else []
    with run_process(command, work / "serve.log") as process:
        base = f"http://127.0.0.1:{port}"
        wait_for(base + "/readyz", process, 600, work / "serve.log")
        yield base, process.pid


def write_policies(folder: Path, upstream_url: str) -> Path:
    """The load's task types (traffic.policies), their upstream the scripted one."""
    folder.mkdir()
    defaults = {"upstream": {"model": "openai/scripted", "api_base": upstream_url, "timeout_s": 60}}
    (folder / "_defaults.yaml").write_text(yaml.safe_dump(defaults))
    for policy in traffic.policies():
        (folder / f"{policy['task_type']}.yaml").write_text(yaml.safe_dump(policy))
    return folder


@contextmanager
def run_process(command: list[str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    env = os.environ | {
        "HF_HUB_OFFLINE": "1",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "OPENAI_API_KEY": "load",
    }
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        yield process
    finally:
        process.send_signal(signal.SIGTERM)  # graceful: the proxy flushes its records
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wait_for(url: str, process: subprocess.Popen[bytes], timeout_s: float, log: Path) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args} exited {process.returncode}:\n{log_tail(log)}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass  # not listening yet
        time.sleep(0.3)
    raise TimeoutError(f"{url} not ready after {timeout_s:.0f} s:\n{log_tail(log)}")


def rss_mb(pid: int) -> float:
    """Resident memory of the process and its children (workers), in MiB."""
    try:
        import psutil

        root = psutil.Process(pid)
        total = sum(p.memory_info().rss for p in [root, *root.children(recursive=True)])
        return round(total / 2**20, 1)
    except ImportError:
        return round(sum(_proc_rss(p) for p in [pid, *children(pid)]) / 2**20, 1)


def _proc_rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            found += [int(child), *children(int(child))]
    return found


def versions() -> dict[str, str | None]:
    from importlib import metadata

    def version(package: str) -> str | None:
        try:
            return metadata.version(package)
        except metadata.PackageNotFoundError:
            return None

    names = ("shadowswitch", "litellm", "openai", "fastapi", "uvicorn", "httpx", "sqlalchemy")
    return {name: version(name) for name in names}
