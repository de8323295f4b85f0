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


def shadow_policy(task: str, replay: str, target: float = 0.9) -> dict[str, Any]:
    """A task type in shadow behind the replay upstream, learning, with the fast scorer."""
    return {
        "task_type": task,
        "upstream": {"model": "openai/replay", "api_base": replay + "/v1", "timeout_s": 10},
        "rollout": {"mode": "shadow"},
        "engine": {"scorer": "embedding", "target_agreement": target, "learn": True},
    }


def ask(client: Any, task: str, tools: list[dict[str, Any]], messages: list[dict[str, Any]]) -> str:
    """Send one request as an agent of `task` with the openai SDK; the decision's id."""
    raw = client.chat.completions.with_raw_response.create(
        model=f"{task}-agent", messages=messages, tools=tools, extra_headers={"X-Shadowswitch-Task": task}
    )
    return str(raw.headers["x-shadowswitch-decision-id"])


def has_pairs(learning: Any, n: int) -> bool:
    return bool(learning()["pairs"] == n)


def agrees(decision: dict[str, Any], want: dict[str, Any]) -> bool:
    if decision["abstain_reason"]:
        return False
    if "content" in want:
        return bool(decision["chosen"] == "__no_tool__")
    return bool(decision["chosen"] == want["name"] and decision["arguments"] == want["arguments"])
