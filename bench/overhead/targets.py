"""The servers measured, each started in front of the same upstream: the floor (bare FastAPI and
LiteLLM), shadowswitch and LiteLLM's proxy."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import yaml

from bench.overhead.processes import Server, started

KEY_ENV = "SHADOWSWITCH_BENCH_UPSTREAM_KEY"
PROXY_KEY = f"sk-bench-{secrets.token_hex(16)}"  # LiteLLM's proxy will not start without a master key
TASK = "bench"  # the policy the pass-through requests match (by model), in mode off


@dataclass(frozen=True)
class Target:
    name: str
    kind: str  # direct | floor | shadowswitch | litellm-proxy
    workers: int = 1
    key: str | None = (
        None  # shadowswitch only: None (no keys), "plain" (a key), "rpm" (a key with a rate limit)
    )


ROOT = Path(__file__).resolve().parents[2]  # this checkout: the shadowswitch a bench measures


def bench_env(source: Path = ROOT) -> dict[str, str]:
    """The servers' environment; PYTHONPATH makes them run `source`'s shadowswitch, not whichever
    checkout the venv installed."""
    env = {"HF_HUB_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True", KEY_ENV: "bench"}
    return os.environ | env | {"PYTHONPATH": str(source)}


def write_policies(folder: Path, upstream_v1: str) -> Path:
    """`_defaults.yaml` and one mode-off policy matched by the request's model."""
    folder.mkdir(parents=True, exist_ok=True)
    upstream = {"model": "openai/bench", "api_base": upstream_v1, "api_key_env": KEY_ENV, "timeout_s": 30}
    (folder / "_defaults.yaml").write_text(yaml.safe_dump({"upstream": upstream}))
    policy = {
        "task_type": TASK,
        "description": "Proxy overhead benchmark: generative pass-through.",
        "match": {"model": "bench"},
        "upstream": upstream,
        "rollout": {"mode": "off"},
    }
    (folder / f"{TASK}.yaml").write_text(yaml.safe_dump(policy))
    return folder


def agent_key(db_url: str, limits: str, source: Path = ROOT) -> str:
    """Make an agent key with the real CLI (`rpm`: a limit never reached, so that every request is
    counted in the database, as a limited key's are)."""
    cli = [sys.executable, "-m", "shadowswitch.cli"]
    env = bench_env(source)
    subprocess.run([*cli, "db", "upgrade", "--db", db_url], env=env, check=True, capture_output=True)
    options = ["--rpm", "1000000000"] if limits == "rpm" else []
    made = subprocess.run(
        [*cli, "keys", "create", "bench-agent", *options, "--db", db_url],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return made.stdout.strip().splitlines()[-1]


@contextmanager
def shadowswitch(
    workdir: Path, upstream_v1: str, port: int, workers: int, source: Path = ROOT, key: str | None = None
) -> Iterator[tuple[Server, str | None]]:
    """`shadowswitch serve --no-models --workers N` (the one in `source`) on SQLite, its decisions
    recorded as usual; with `key`, an agent key is made first, and yielded for the requests."""
    policies = write_policies(workdir / "policies", upstream_v1)
    db = workdir / f"overhead-{workers}w{'-key-' + key if key else ''}.db"
    bearer = agent_key(f"sqlite:///{db}", key, source) if key else None
    cmd = [sys.executable, "-m", "shadowswitch.cli", "serve", "--host", "127.0.0.1", "--port", str(port)]
    cmd += ["--policies", str(policies), "--db", f"sqlite:///{db}", "--no-models", "--log-level", "warning"]
    cmd += ["--workers", str(workers)]
    log = workdir / f"shadowswitch-{workers}w{'-key-' + key if key else ''}.log"
    with started(cmd, f"http://127.0.0.1:{port}/readyz", log, bench_env(source)) as server:
        yield server, bearer


@contextmanager
def floor(workdir: Path, upstream_v1: str, port: int) -> Iterator[Server]:
    """`bench.overhead.floor`: a bare FastAPI route calling `litellm.acompletion`, one worker."""
    cmd = [sys.executable, "-m", "bench.overhead.floor", "--port", str(port), "--upstream", upstream_v1]
    with started(cmd, f"http://127.0.0.1:{port}/v1/models", workdir / "floor.log", bench_env()) as server:
        yield server


PROXY_PYTHON_ENV = "SHADOWSWITCH_BENCH_LITELLM_PYTHON"
PROXY_VENV = ROOT / ".venv-litellm-proxy"  # `make bench-env` builds it
_HAS_PROXY = (
    "import importlib.util as u, sys; "
    "sys.exit(0 if all(u.find_spec(m) for m in ('litellm', 'backoff', 'apscheduler', 'orjson')) else 1)"
)


def litellm_proxy_python() -> tuple[str | None, str]:
    """A Python that can run LiteLLM's proxy, and its LiteLLM version; else None and why not.

    `litellm[proxy]` lives in a venv of its own: installing it here would move this venv's
    litellm to the last version whose `litellm-proxy` package the registry has."""
    pythons = [os.environ.get(PROXY_PYTHON_ENV), str(PROXY_VENV / "bin" / "python"), sys.executable]
    for python in filter(None, pythons):
        if Path(python).exists() and subprocess.run([python, "-c", _HAS_PROXY]).returncode == 0:
            version = subprocess.run(
                [python, "-c", "import importlib.metadata as m; print(m.version('litellm'))"],
                capture_output=True,
                text=True,
            ).stdout.strip()
            return python, version
    return None, (
        "LiteLLM's proxy is not installed: `make bench-env` installs litellm[proxy] into "
        f"{PROXY_VENV} (or set {PROXY_PYTHON_ENV} to a Python that has it)"
    )


@contextmanager
def litellm_proxy(workdir: Path, upstream_v1: str, port: int, python: str) -> Iterator[Server]:
    """LiteLLM's own proxy server, one worker, one model routed to the same upstream."""
    config = {
        "model_list": [
            {
                "model_name": "bench",
                "litellm_params": {"model": "openai/bench", "api_base": upstream_v1, "api_key": "bench"},
            }
        ],
        "litellm_settings": {"telemetry": False},
        "general_settings": {"master_key": PROXY_KEY},
    }
    path = workdir / "litellm-proxy.yaml"
    path.write_text(yaml.safe_dump(config))
    cmd = [python, "-m", "litellm.proxy.proxy_cli", "--config", str(path)]
    cmd += ["--host", "127.0.0.1", "--port", str(port), "--num_workers", "1"]
    env = bench_env() | {"LITELLM_LOG": "ERROR"}
    log = workdir / "litellm-proxy.log"
    with started(cmd, f"http://127.0.0.1:{port}/health/liveliness", log, env) as server:
        yield server
