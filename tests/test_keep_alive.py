"""A real `shadowswitch serve` keeps an idle connection open longer than agents' HTTP clients do.

httpx (so the openai SDK) drops a pooled connection after 5 s idle; uvicorn's default closes it
after 5 s too, and a request an agent sends just as the server closes fails as a connection
error. The server must outlast the client, so it is always the client that closes.
"""

from __future__ import annotations

import http.client
import time
from pathlib import Path

from tests.conftest import write_policies
from tests.serve_process import serve


def test_an_idle_connection_outlives_the_clients_keep_alive(tmp_path: Path, upstream: str) -> None:
    policies = write_policies(tmp_path / "policies", upstream)
    with serve(policies, f"sqlite:///{tmp_path / 'ss.db'}", tmp_path / "serve.log", "--no-models") as served:
        conn = http.client.HTTPConnection(served.url.removeprefix("http://"), timeout=10)
        try:
            conn.request("GET", "/healthz")
            assert conn.getresponse().read() == b'{"status":"ok"}'
            time.sleep(6)  # past httpx's keep-alive expiry (5 s), idle
            conn.request("GET", "/healthz")  # on the same connection: RemoteDisconnected if closed
            assert conn.getresponse().read() == b'{"status":"ok"}'
        finally:
            conn.close()
