"""Real HTTP servers for tests: uvicorn in a thread on a free port."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import uvicorn

from research.bfcl.proxy import free_port


@contextlib.contextmanager
def running(app: Any, ready_path: str = "/healthz", timeout_s: float = 60) -> Iterator[str]:
    """Serve `app` until the block ends; yields its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout_s
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"server on {url} did not start")
        time.sleep(0.02)
    with contextlib.suppress(httpx.HTTPError):
        httpx.get(url + ready_path, timeout=5)
    try:
        yield url
    finally:
        server.should_exit = True
        thread.join(timeout=10)
