"""`shadowswitch demo --once` in a process of its own, told quickly against a temp directory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from shadowswitch.store.tables import Decision

ROOT = Path(__file__).resolve().parents[2]


def quick_demo(
    workdir: Path,
    tasks: int,
    *more: str,
    latency: str = "0.05-0.1",
    error_rate: str = "0",
    trips: bool = True,
) -> subprocess.CompletedProcess[str]:
    """The demo's story with `tasks` tasks a stage (0: the whole set) and a fast simulated upstream;
    its policies and database stay in `workdir`. Asserts it exits 0 and, with `trips`, that the
    breaker tripped."""
    quick = ["--once", "--tasks", str(tasks), "--latency", latency, "--error-rate", error_rate]
    quick += ["--concurrency", "4", "--port", "0", *more]
    command = [sys.executable, "-m", "examples.demo.cli", *quick, "--workdir", str(workdir)]
    env = {**os.environ, "COLUMNS": "160"}
    out = subprocess.run(command, capture_output=True, text=True, timeout=1800, cwd=ROOT, env=env)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert "dashboard:" in out.stdout
    assert not trips or "breaker tripped" in out.stdout + out.stderr, out.stdout[-3000:]
    return out


def every_pair_kept(rows: list[Decision]) -> list[Decision]:
    """The shadow stages' decisions, each of whose shadow runs ended: none skipped for want of
    room, none cut by the served path's time budget."""
    shadow = [r for r in rows if r.mode == "shadow"]
    assert shadow and all(r.shadow and r.shadow.get("path") == "local" for r in shadow)
    assert not [r.shadow for r in shadow if r.shadow.get("skipped") or "error" in r.shadow]
    assert not [r.id for r in shadow if r.shadow.get("abstain_reason") == "time_budget"]
    return shadow
