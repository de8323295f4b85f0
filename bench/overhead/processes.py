"""Start the servers under test as processes of their own, wait for them, and read their CPU time."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

TICKS = os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def process_tree(pid: int) -> list[int]:
    """`pid` and all its descendants (uvicorn's workers, LiteLLM's spawned children)."""
    tree, todo = [], [pid]
    while todo:
        current = todo.pop()
        tree.append(current)
        todo += children(current)
    return tree


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process and every live descendant (from /proc/PID/stat)."""
    total = 0.0
    for member in process_tree(pid):
        try:
            stat = Path(f"/proc/{member}/stat").read_text()
        except OSError:
            continue  # ended between the listing and the read
        fields = stat.rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime
    return total


def rss_bytes(pid: int) -> int:
    """Resident memory of a process and its descendants (VmRSS)."""
    return _tree_sum(pid, "status", "VmRSS:")


def pss_bytes(pid: int) -> int:
    """Proportional memory of a process and its descendants: each page shared by k processes
    (the models' libraries in every worker) counts 1/k to each, so the sum is what they cost."""
    return _tree_sum(pid, "smaps_rollup", "Pss:")


def _tree_sum(pid: int, file: str, field: str) -> int:
    """A kB field of /proc/PID/`file` summed over the process tree, in bytes."""
    total = 0
    for member in process_tree(pid):
        try:
            for line in Path(f"/proc/{member}/{file}").read_text().splitlines():
                if line.startswith(field):
                    total += int(line.split()[1]) * 1024
        except OSError:
            continue
    return total


def wait_http(url: str, proc: subprocess.Popen[bytes], timeout_s: float, log: Path) -> float:
    """Poll `url` until it answers 200; the seconds that took. Raise with the log's tail otherwise."""
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args!r} exited {proc.returncode}:\n{tail(log)}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return time.monotonic() - started
        except httpx.HTTPError:
            pass  # not listening yet
        time.sleep(0.1)
    raise TimeoutError(f"{url} not ready after {timeout_s:.0f}s:\n{tail(log)}")


def tail(log: Path, lines: int = 30) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:]) if log.exists() else ""


@dataclass
class Server:
    proc: subprocess.Popen[bytes]
    ready_s: float  # from start to the first 200 on its ready URL

    @property
    def pid(self) -> int:
        return self.proc.pid


@contextmanager
def started(
    cmd: list[str], ready_url: str, log: Path, env: dict[str, str] | None = None, timeout_s: float = 180
) -> Iterator[Server]:
    """Run `cmd` (its own process group) until the block ends; ready when `ready_url` answers 200."""
    with log.open("wb") as out:
        proc = subprocess.Popen(
            cmd, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True, cwd=log.parent
        )
    try:
        yield Server(proc, wait_http(ready_url, proc, timeout_s, log))
    finally:
        stop(proc)


def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the process group this run started (the server and its workers), then SIGKILL
    to whatever of it is still there."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        pass
    except ProcessLookupError:
        return  # the whole group has ended
    with contextlib.suppress(ProcessLookupError):  # what is left, such as an orphaned worker
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=5)


@contextmanager
def upstream_started(workdir: Path, env: dict[str, str] | None = None) -> Iterator[str]:
    """The benches' upstream (`bench.overhead.upstream`, 20 ms) in a process of its own, until the
    block ends; yields its /v1 base URL."""
    from bench.bfcl.proxy import free_port

    port = free_port()
    cmd = [sys.executable, "-m", "bench.overhead.upstream", "--port", str(port)]
    with started(cmd, f"http://127.0.0.1:{port}/v1/models", workdir / "upstream.log", env):
        yield f"http://127.0.0.1:{port}/v1"
