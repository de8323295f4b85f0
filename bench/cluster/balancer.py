"""HAProxy from the distribution's package, in front of the replicas: round robin, health checks
on /readyz, and a request that could not connect sent to another replica (never one that was
sent: a POST may have been decided already)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench.bfcl.proxy import free_port
from bench.load.run import wait_for

CONFIG = """\
global
    maxconn 4096
defaults
    mode http
    timeout connect 2s
    timeout client 300s
    timeout server 300s
    timeout http-keep-alive 75s
    retries 3
    option redispatch
    retry-on conn-failure
frontend agents
    bind 127.0.0.1:{port}
    default_backend replicas
backend replicas
    balance roundrobin
    option httpchk GET /readyz
    default-server inter 500ms fall 2 rise 2
{servers}
"""


def haproxy() -> str:
    found = shutil.which("haproxy")
    if found is None:
        raise SystemExit("bench cluster needs HAProxy: apt-get install haproxy")
    return found


@contextmanager
def balancer(work: Path, replicas: list[str]) -> Iterator[str]:
    """HAProxy on a free port over `replicas` (base URLs); yields its base URL."""
    port = free_port()
    servers = "\n".join(
        f"    server r{i} {url.removeprefix('http://')} check" for i, url in enumerate(replicas, 1)
    )
    config = work / "haproxy.cfg"
    config.write_text(CONFIG.format(port=port, servers=servers))
    subprocess.run([haproxy(), "-c", "-q", "-f", str(config)], check=True)
    log = work / "haproxy.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [haproxy(), "-db", "-f", str(config)], stdout=out, stderr=subprocess.STDOUT
        )
    try:
        base = f"http://127.0.0.1:{port}"
        wait_for(base + "/readyz", process, 60, log)
        yield base
    finally:
        process.terminate()
        process.wait(10)
