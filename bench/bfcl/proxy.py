"""Run BFCL cases through a real `shadowswitch serve` with the official `openai` SDK.

One policy per scorer (thresholds 0: always answer locally), plus one with the
default thresholds to measure how often the engine abstains. The upstream is
a local stub, reached only on fallback.
"""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import yaml

from bench.bfcl.checker import Call
from bench.bfcl.data import BfclCase
from bench.bfcl.outcome import Outcome, score

STUB_KEY_ENV = "SHADOWSWITCH_BENCH_STUB_KEY"
DEFAULT_SUFFIX = "_default"  # task `bfcl_<scorer>_default`: the policy's default thresholds
CHOICE_LAPS = ("candidates", "scoring")  # the decision record's laps that choose the action


def task_name(scorer: str, default_thresholds: bool = False) -> str:
    return f"bfcl_{scorer}" + (DEFAULT_SUFFIX if default_thresholds else "")


def policy_for(scorer: str, default_thresholds: bool) -> dict[str, Any]:
    """A canary-100% policy whose engine uses `scorer`; thresholds 0 and a roomy time budget
    unless asked otherwise (the policy's defaults)."""
    engine: dict[str, Any] = {
        "scorer": scorer,
        "candidates": "tools",
        "allow_no_tool": True,
        "certify": False,
    }
    if not default_thresholds:
        # Every case decided, however long it takes: the quality measured is the engine's, not
        # the machine's (a busy machine would turn slow decisions into `time_budget` abstentions).
        engine |= {"min_confidence": 0, "min_margin": 0, "time_budget_ms": 60_000}
    return {
        "task_type": task_name(scorer, default_thresholds),
        "description": f"BFCL benchmark, {scorer} scorer.",
        "rollout": {"mode": "canary", "percent": 100, "compare_percent": 0},
        "engine": engine,
        # a bad run must not revert the task type to generative halfway through
        "breaker": {"consecutive_failures": 1000, "reprobe_after_s": 0},
    }


def write_policies(folder: Path, scorers: list[str], stub_url: str, abstain: list[str]) -> None:
    """`_defaults.yaml` (the stub upstream) and one policy file per measured task type."""
    folder.mkdir(parents=True, exist_ok=True)
    upstream = {"model": "openai/stub", "api_base": stub_url, "api_key_env": STUB_KEY_ENV}
    (folder / "_defaults.yaml").write_text(yaml.safe_dump({"upstream": upstream}))
    runs = [(s, False) for s in scorers] + [(s, True) for s in abstain]
    for scorer, default in runs:
        policy = policy_for(scorer, default)
        (folder / f"{policy['task_type']}.yaml").write_text(yaml.safe_dump(policy))


# Below Linux's ephemeral range (32768-60999): a port the kernel handed out with bind(0) can be
# given to an outgoing connection between this check and the server binding it, and the test
# suite's two passes run side by side (Makefile) opening many connections.
PORTS = range(20000, 32000)


def free_port() -> int:
    """A port on 127.0.0.1 nothing listens on now, chosen at random below the ephemeral range."""
    pick = random.SystemRandom()
    for _ in range(200):
        port = pick.choice(PORTS)
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {PORTS.start}-{PORTS.stop - 1} after 200 tries")


def wait_ready(base: str, proc: subprocess.Popen[bytes], timeout_s: float, log: Path) -> None:
    """Poll /readyz until the proxy (models loaded, DB reachable) answers 200."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"shadowswitch serve exited {proc.returncode}:\n{log_tail(log)}")
        try:
            if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass  # not listening yet
        time.sleep(0.5)
    raise TimeoutError(f"proxy not ready after {timeout_s:.0f}s:\n{log_tail(log)}")


def log_tail(log: Path, lines: int = 30) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:]) if log.exists() else ""


@contextmanager
def running_proxy(workdir: Path, ready_timeout_s: float = 600) -> Iterator[str]:
    """Start `shadowswitch serve` on a free port with `workdir/policies`; yield its base URL."""
    port = free_port()
    log = workdir / "serve.log"
    cmd = [
        sys.executable,
        "-m",
        "shadowswitch.cli",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--policies",
        str(workdir / "policies"),
        "--db",
        f"sqlite:///{workdir / 'bench.db'}",
        "--log-level",
        "warning",
    ]
    env = os.environ | {"HF_HUB_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True", STUB_KEY_ENV: "stub"}
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_ready(base, proc, ready_timeout_s, log)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def calls_of(message: Any) -> list[Call] | None:
    """Tool calls of an SDK message; None if any arguments are not a JSON object."""
    calls = []
    for tool_call in message.tool_calls or []:
        try:
            arguments = json.loads(tool_call.function.arguments or "{}")
        except json.JSONDecodeError:
            return None
        if not isinstance(arguments, dict):
            return None
        calls.append(Call(tool_call.function.name, arguments))
    return calls


class ProxyClient:
    """Sends cases as OpenAI tool requests and reads each decision record back."""

    def __init__(self, base: str) -> None:
        from openai import OpenAI

        self.base = base
        self.openai = OpenAI(base_url=f"{base}/v1", api_key="bench", max_retries=0, timeout=900)
        self.http = httpx.Client(base_url=base, timeout=30)

    def run(self, case: BfclCase, task: str) -> Outcome:
        """One case through the proxy under `task`, scored, with choice and call latency."""
        headers = {"X-Shadowswitch-Task": task, "X-Shadowswitch-Session": case.id}
        start = time.perf_counter()
        raw = self.openai.chat.completions.with_raw_response.create(
            model="bfcl", extra_headers=headers, **case.request
        )
        call_ms = (time.perf_counter() - start) * 1000
        completion = raw.parse()
        decision = self.decision(raw.headers.get("x-shadowswitch-decision-id"))
        path = raw.headers.get("x-shadowswitch-path") or str(decision.get("path", "?"))
        outcome = score(
            case,
            calls_of(completion.choices[0].message),
            choice_ms=choice_ms(decision),
            call_ms=call_ms,
            path=path,
        )
        if path != "local":
            outcome.abstain = decision.get("abstain_reason")
            outcome.error = outcome.abstain or decision.get("error") or outcome.error
        return outcome

    def decision(self, decision_id: str | None) -> dict[str, Any]:
        """The decision record, or {} when the proxy gave no id or does not know it."""
        if not decision_id:
            return {}
        response = self.http.get(f"/v1/shadowswitch/decisions/{decision_id}")
        return dict(response.json()) if response.status_code == 200 else {}


def choice_ms(decision: dict[str, Any]) -> float | None:
    """Time to choose: the engine's candidates and scoring laps (filling the arguments belongs
    to the whole call, `call_ms`); without them its total, else the proxy latency."""
    timings = decision.get("timings_ms")
    laps = [timings.get(k) for k in CHOICE_LAPS] if isinstance(timings, dict) else []
    if laps and all(isinstance(v, int | float) for v in laps):
        return float(sum(laps))
    if isinstance(timings, dict) and isinstance(timings.get("total"), int | float):
        return float(timings["total"])
    if isinstance(timings, dict) and timings:
        return float(sum(v for v in timings.values() if isinstance(v, int | float)))
    latency = decision.get("latency_ms")
    return float(latency) if isinstance(latency, int | float) else None
