"""What the learning tests share: the admin token, a replay upstream, the `learn` CLI, checks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

TOKEN = "learn-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def cli(db_url: str, policies: Path, *args: str) -> dict[str, Any]:
    env = {**os.environ, "SHADOWSWITCH_DB_URL": db_url}
    run = subprocess.run(
        [sys.executable, "-m", "shadowswitch.cli", "learn", *args, "--policies", str(policies), "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    result: dict[str, Any] = json.loads(run.stdout)
    return result


def has_pairs(learning: Any, n: int) -> bool:
    return bool(learning()["pairs"] == n)


def agrees(decision: dict[str, Any], want: dict[str, Any]) -> bool:
    if decision["abstain_reason"]:
        return False
    if "content" in want:
        return bool(decision["chosen"] == "__no_tool__")
    return bool(decision["chosen"] == want["name"] and decision["arguments"] == want["arguments"])
