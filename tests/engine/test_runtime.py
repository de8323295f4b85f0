"""Process-wide settings are made once at start-up, never by building an engine or loading models."""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch

from shadowswitch.cli.serving import share_cores
from shadowswitch.engines.local import configure_torch
from shadowswitch.engines.local.engine import ChoiceEngine
from shadowswitch.engines.local.runtime import models
from shadowswitch.engines.local.runtime.models import native_bf16
from shadowswitch.engines.local.runtime.process import THREADS_ENV

LOCAL = Path(__file__).resolve().parents[2] / "shadowswitch" / "engines" / "local"


@pytest.fixture
def threads() -> Iterator[int]:
    before = torch.get_num_threads()
    yield before
    torch.set_num_threads(before)


def test_configure_torch_sets_the_threads_once_for_the_process(threads: int) -> None:
    assert configure_torch(1) == 1 and torch.get_num_threads() == 1
    assert 1 <= configure_torch() <= 8


def test_the_environment_may_set_torch_threads(threads: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(THREADS_ENV, "1")
    assert configure_torch() == 1 and torch.get_num_threads() == 1
    assert configure_torch(2) == 2  # the caller's number first


def test_a_server_leaves_a_core_to_its_event_loop(threads: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(THREADS_ENV, raising=False)
    assert configure_torch(spare=1) == max(1, min((os.cpu_count() or 1) - 1, 8))


def test_serving_lets_waiting_openmp_threads_sleep_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    share_cores()
    assert os.environ["OMP_WAIT_POLICY"] == "PASSIVE"
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")
    share_cores()
    assert os.environ["OMP_WAIT_POLICY"] == "ACTIVE"


@pytest.mark.slow
def test_building_an_engine_leaves_the_process_settings_alone(engine: Any, threads: int) -> None:
    torch.set_num_threads(1)
    built = ChoiceEngine(engine.engine.models)
    built.close()
    assert torch.get_num_threads() == 1


WRITERS = ("os.environ.setdefault", "os.environ.update", "os.environ.pop", "os.putenv")


def environment_writes(path: Path) -> list[str]:
    """`os.environ[...] = ...`, `os.environ.setdefault/update/pop(...)`, `os.putenv(...)`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        target = node.targets[0] if isinstance(node, ast.Assign) else None
        if isinstance(target, ast.Subscript) and ast.unparse(target.value) == "os.environ":
            found.append(f"{path.name}:{node.lineno}")
        if isinstance(node, ast.Call) and ast.unparse(node.func) in WRITERS:
            found.append(f"{path.name}:{node.lineno}")
    return found


def test_the_engine_writes_no_environment_variables() -> None:
    assert [hit for path in sorted(LOCAL.rglob("*.py")) for hit in environment_writes(path)] == []


@pytest.mark.parametrize(
    ("cpuinfo", "native"),
    [
        ("processor\t: 0\nflags\t\t: fpu sse2 avx2 fma\n", False),  # AVX2 only: emulated bfloat16
        ("flags\t\t: avx2 avx512f avx512_bf16\n", True),
        ("flags\t\t: avx2 amx_tile amx_bf16\n", True),
        ("Features\t: fp asimd bf16 i8mm\n", True),  # Arm
        ("processor\t: 0\n", None),  # no flags line: cannot tell, the probe decides
    ],
)
def test_native_bfloat16_is_read_from_the_cpu_flags(
    tmp_path: Path, cpuinfo: str, native: bool | None
) -> None:
    path = tmp_path / "cpuinfo"
    path.write_text(cpuinfo)
    assert native_bf16(path) is native
    assert native_bf16(tmp_path / "absent") is None


def test_without_a_bfloat16_unit_the_model_stays_float32_unprobed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(models, "native_bf16", lambda: False)
    monkeypatch.delenv("SHADOWSWITCH_LM_DTYPE", raising=False)
    # A model that fails when run: the answer must come without a timing probe.
    assert models.fastest_dtype(object(), "lm", "SHADOWSWITCH_LM_DTYPE", (1, 4)) is torch.float32
