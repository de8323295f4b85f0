"""A real `shadowswitch serve` process of this tree, for tests that send it signals."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx

from tests.support.servers import free_port
from tests.support.wait import eventually

ROOT = Path(__file__).resolve().parents[2]


class Served:
    def __init__(self, policies: Path, db_url: str, log: Path, args: list[str], env: dict[str, str]):
        self.url = f"http://127.0.0.1:{free_port()}"
        self.log = log
        command = [sys.executable, "-m", "shadowswitch.cli", "serve", "--port", self.url.rsplit(":", 1)[1]]
        command += ["--policies", str(policies), "--db", db_url, *args]
        path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
        environment = {**os.environ, "PYTHONPATH": path, **env}
        with log.open("w") as out:
            self.process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=environment)

    def ready(self) -> bool:
        assert self.process.poll() is None, self.text()
        if f"running on {self.url}" not in self.text():  # not another lane's server on a reused port
            return False
        with contextlib.suppress(httpx.HTTPError):
            return httpx.get(self.url + "/readyz", timeout=2).status_code == 200
        return False

    def wait_ready(self, timeout_s: float = 120) -> None:
        try:
            eventually(self.ready, timeout_s=timeout_s, interval_s=0.1)
        except AssertionError as error:
            raise AssertionError(f"{self.url} not ready:\n{self.text()}") from error

    def send(self, sig: signal.Signals) -> None:
        self.process.send_signal(sig)

    def wait(self, timeout_s: float = 60) -> int:
        return self.process.wait(timeout_s)

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


@contextlib.contextmanager
def serve(policies: Path, db_url: str, log: Path, *args: str, **env: str) -> Iterator[Served]:
    """Start `shadowswitch serve` and wait until it is ready; killed at the end if still running."""
    served = Served(policies, db_url, log, list(args), env)
    try:
        served.wait_ready(300 if "--no-models" in args else 900)  # loading the models takes a while
        yield served
    finally:
        served.kill()
