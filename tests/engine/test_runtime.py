"""Process-wide settings are made once at start-up, never by building an engine or loading models."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch

from shadowswitch.engines.local import configure_torch
from shadowswitch.engines.local.engine import ChoiceEngine

LOCAL = Path(__file__).resolve().parents[2] / "shadowswitch" / "engines" / "local"


@pytest.fixture
def threads() -> Iterator[int]:
    before = torch.get_num_threads()
    yield before
    torch.set_num_threads(before)


def test_configure_torch_sets_the_threads_once_for_the_process(threads: int) -> None:
    assert configure_torch(1) == 1 and torch.get_num_threads() == 1
    assert 1 <= configure_torch() <= 8


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
