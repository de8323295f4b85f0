"""Real serving engines on the CPU, for `engine.backend: remote`: Infinity (an OpenAI-compatible
embeddings server) with the embedded encoder, and vLLM's CPU build with the embedded LM.

Each pins its own torch stack, so each lives in a venv of its own that `make serving-env`
builds (.venv-infinity, .venv-vllm); both serve the embedded models from their local files."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from research.overhead.processes import Server, started
from shadowswitch.engines.local.runtime.models import (
    EMBEDDED_GGUF,
    ENCODER_ID,
    ENCODER_PACKAGE,
    default_cache_dir,
    package_dir,
)
from tests.support.wait import eventually

ROOT = Path(__file__).resolve().parents[2]
INFINITY = ROOT / ".venv-infinity" / "bin" / "infinity_emb"
VLLM_PYTHON = ROOT / ".venv-vllm" / "bin" / "python"
LM_NAME = Path(EMBEDDED_GGUF).stem  # the dequantised copy `make install` caches


def _require(path: Path) -> None:
    if not path.exists():
        pytest.fail(f"{path} is missing: `make serving-env` installs the serving engines these tests use")


def _env() -> dict[str, str]:
    return {**os.environ, "HF_HUB_OFFLINE": "1"}


@contextmanager
def infinity(port: int, workdir: Path) -> Iterator[Server]:
    """The embedded sentence encoder behind Infinity's `/embeddings`, named as the engine names it."""
    _require(INFINITY)
    model = package_dir(ENCODER_PACKAGE) / "model"
    cmd = [str(INFINITY), "v2", "--model-id", str(model), "--served-model-name", ENCODER_ID]
    cmd += ["--engine", "torch", "--device", "cpu", "--port", str(port), "--host", "127.0.0.1"]
    with started(cmd, f"http://127.0.0.1:{port}/models", workdir / "infinity.log", _env(), 180) as server:
        yield server


@contextmanager
def vllm(port: int, workdir: Path) -> Iterator[Server]:
    """The embedded LM (its dequantised copy) behind vLLM's OpenAI-compatible server.

    `--enforce-eager`: no graph compilation, which costs a minute at start on 2 cores."""
    _require(VLLM_PYTHON)
    model = default_cache_dir() / LM_NAME
    if not (model / "config.json").exists():
        pytest.fail(f"{model} is missing: `make install` caches the dequantised embedded LM")
    cmd = [str(VLLM_PYTHON), "-m", "vllm.entrypoints.openai.api_server", "--model", str(model)]
    cmd += ["--served-model-name", LM_NAME, "--dtype", "bfloat16", "--max-model-len", "2048"]
    cmd += ["--enforce-eager", "--host", "127.0.0.1", "--port", str(port)]
    env = {**_env(), "VLLM_CPU_KVCACHE_SPACE": "1"}  # GiB; the default takes far more than a test needs
    with started(cmd, f"http://127.0.0.1:{port}/v1/models", workdir / "vllm.log", env, 300) as server:
        yield server


def recorded_errors(db: Path, ids: list[str]) -> list[str | None]:
    """The `error` of each decision row named, once all are written (SQLite at `db`)."""

    def read() -> list[str | None]:
        with create_engine(f"sqlite:///{db}").connect() as conn:
            rows = conn.execute(text("SELECT id, error FROM decision")).all()
        found = {row[0]: row[1] for row in rows}
        return [found[i] for i in ids] if all(i in found for i in ids) else []

    return eventually(read, timeout_s=10, what="the decisions recorded")
