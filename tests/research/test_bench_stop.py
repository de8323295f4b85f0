"""A bench run that is stopped (kill, a CI timeout) takes the proxy it started down with it."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


def _children(pid: int) -> list[int]:
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
        deadline = time.monotonic() + 120
        while not (proxies := _children(bench.pid)) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert proxies, "the bench never started its proxy"
        bench.send_signal(signal.SIGTERM)
        assert bench.wait(timeout=60) == 128 + signal.SIGTERM
        deadline = time.monotonic() + 30
        while any(_alive(p) for p in proxies) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not any(_alive(p) for p in proxies), "the proxy outlived the bench"
    finally:  # a failed run must not leave a proxy behind either
        bench.kill()
        for pid in proxies:
            subprocess.run(["kill", "-9", str(pid)], capture_output=True, check=False)
