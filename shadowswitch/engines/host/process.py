"""Start the engine process beside `serve --workers N`, restart it if it dies, stop it after."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import TracebackType

log = logging.getLogger(__name__)
RESTART_WAIT_S = (1.0, 30.0)  # first wait before a restart, and the most it doubles to
STOP_WAIT_S = 10.0


class EngineProcess:
    """`python -m shadowswitch.engines.host` on a socket in a directory only this user can open.

    The workers fall back to generative while it is away; a process that exits on its own is
    started again (waits doubling from 1 s, reset once it has run a minute)."""

    def __init__(self, log_level: str = "info") -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="shadowswitch-engine-"))  # mode 0700
        self.socket = self.dir / "engine.sock"
        self.log_level = log_level
        self._process: subprocess.Popen[bytes] | None = None
        self._stopping = threading.Event()
        self._watcher = threading.Thread(target=self._watch, name="engine process", daemon=True)

    def __enter__(self) -> EngineProcess:
        self._process = self._start()
        self._watcher.start()
        return self

    def __exit__(
        self, _type: type[BaseException] | None, _exc: BaseException | None, _tb: TracebackType | None
    ) -> None:
        self._stopping.set()
        process = self._process
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(STOP_WAIT_S)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(self.dir, ignore_errors=True)

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    def _start(self) -> subprocess.Popen[bytes]:
        command = [sys.executable, "-m", "shadowswitch.engines.host", "--socket", str(self.socket)]
        process = subprocess.Popen([*command, "--log-level", self.log_level], env=os.environ.copy())
        log.info("engine process %d serves the workers on %s", process.pid, self.socket)
        return process

    def _watch(self) -> None:
        wait = RESTART_WAIT_S[0]
        while self._process is not None:
            started = time.monotonic()
            code = self._process.wait()
            if self._stopping.is_set():
                return
            if time.monotonic() - started > 60:
                wait = RESTART_WAIT_S[0]
            log.error(
                "engine process exited (%s); the workers answer generatively; restarting in %.0f s",
                code,
                wait,
            )
            if self._stopping.wait(wait):
                return
            self._process = self._start()
            wait = min(wait * 2, RESTART_WAIT_S[1])
