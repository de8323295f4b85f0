"""A bench run that is stopped (kill, a CI timeout) takes the proxy it started down with it."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.wait import eventually


def children(pid: int) -> list[int]:
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in found.split()]


def _alive(pid: int) -> bool:
    state = Path(f"/proc/{pid}/stat")
    return state.exists() and state.read_text().split()[2] != "Z"


@pytest.mark.slow
def test_sigterm_stops_the_proxy_the_bench_started(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "shadowswitch.cli", "bench", "bfcl", "--limit", "50"]
    cmd += ["--skip-baselines", "--scorers", "embedding", "--abstain-scorers", "none"]
    cmd += ["--out", str(tmp_path / "out.json")]
    bench = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    proxies: list[int] = []
    try:
        proxies = eventually(lambda: children(bench.pid), 120, 0.2, "the bench starts its proxy")
        bench.send_signal(signal.SIGTERM)
        assert bench.wait(timeout=60) == 128 + signal.SIGTERM
        eventually(lambda: not any(_alive(p) for p in proxies), 30, 0.2, "the proxy stops with the bench")
    finally:  # a failed run must not leave a proxy behind either
        bench.kill()
        for pid in proxies:
            subprocess.run(["kill", "-9", str(pid)], capture_output=True, check=False)
