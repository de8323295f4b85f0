"""Real HTTP servers for tests: uvicorn in a thread on a free port."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import uvicorn

from bench.bfcl.proxy import free_port
from tests.support.wait import eventually

__all__ = ["free_port", "running"]


@contextlib.contextmanager
def running(app: Any, ready_path: str = "/healthz", timeout_s: float = 60, **config: Any) -> Iterator[str]:
    """Serve `app` until the block ends; yields its base URL. `config`: more uvicorn settings."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", **config))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"

    def started() -> bool:
        if not thread.is_alive():
            raise RuntimeError(f"server on {url} did not start")
        return bool(server.started)

    eventually(started, timeout_s=timeout_s, interval_s=0.02, what=f"server on {url} started")
    with contextlib.suppress(httpx.HTTPError):
        httpx.get(url + ready_path, timeout=5)
    try:
        yield url
    finally:
        server.should_exit = True
        thread.join(timeout=10)
