"""A real `shadowswitch serve` replica of this tree, its log in a file, and what the replica tests
ask of it (the travel agent's request, feedback, the breaker as its /metrics show it)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import httpx

from tests.support.clients import TASK
from tests.support.policies import TOOLS
from tests.support.servers import free_port
from tests.support.wait import eventually

BIN = Path(sys.executable).parent / "shadowswitch"


class Replica:
    """One `shadowswitch serve` process, its log in a file; `env`: settings of its own."""

    def __init__(
        self,
        name: str,
        db_url: str,
        policies: Path,
        log_dir: Path,
        models: bool,
        **env: str,
    ) -> None:
        self.url = f"http://127.0.0.1:{free_port()}"
        self.log = log_dir / f"{name}.log"
        command = [BIN, "serve", "--port", self.url.rsplit(":", 1)[1], "--policies", policies]
        command += ["--db", db_url, *([] if models else ["--no-models"])]
        with self.log.open("w") as out:
            self.process = subprocess.Popen(
                [str(part) for part in command],
                stdout=out,
                stderr=subprocess.STDOUT,
                env={**os.environ, **env},
            )

    def wait_ready(self, timeout_s: float = 240) -> None:
        def ready() -> bool:
            assert self.process.poll() is None, self.log.read_text()
            with contextlib.suppress(httpx.HTTPError):
                return httpx.get(self.url + "/readyz", timeout=2).status_code == 200
            return False

        eventually(ready, timeout_s=timeout_s, interval_s=0.2, what=f"{self.url} ready")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)

    def ask(self, session: str) -> httpx.Response:
        body = {
            "model": "travel-agent-step",
            "messages": [{"role": "user", "content": "Book me a hotel in Rome for 3 nights"}],
            "tools": TOOLS,
        }
        headers = {"X-Shadowswitch-Session": session}
        response = httpx.post(f"{self.url}/v1/chat/completions", json=body, headers=headers, timeout=60)
        assert response.status_code == 200, response.text
        return response

    def local_decisions(self, n: int, prefix: str) -> list[str]:
        ids = []
        for i in range(n):
            response = self.ask(f"{prefix}{i}")
            assert response.headers["x-shadowswitch-path"] == "local", response.text
            ids.append(response.headers["x-shadowswitch-decision-id"])
        return ids

    def fail(self, decision_id: str) -> None:
        body = {"decision_id": decision_id, "success": False, "reason": "wrong hotel"}
        response = httpx.post(f"{self.url}/v1/shadowswitch/feedback", json=body, timeout=30)
        assert response.status_code == 200, response.text

    def breaker(self) -> str | None:
        """The breaker state in this replica's live view (one cheap /metrics read)."""
        text = httpx.get(self.url + "/metrics", timeout=5).text
        for state in ("closed", "open", "half_open"):
            if f'shadowswitch_breaker_state{{state="{state}",task_type="{TASK}"}} 1.0' in text:
                return state
        return None
