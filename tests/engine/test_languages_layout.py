"""The languages are an axis of their own: a reader imports no argument, choice or runtime code
(so arguments/ and languages/ import in one direction, with no circle), and the argument code
names no language but through the registry and the base language."""

from __future__ import annotations

import ast
from pathlib import Path

LOCAL = Path(__file__).parents[2] / "shadowswitch" / "engines" / "local"
PACKAGE = "shadowswitch.engines.local"


def imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    return out | {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}


def test_a_reader_imports_no_argument_choice_or_runtime_code() -> None:
    for path in (LOCAL / "languages").rglob("*.py"):
        for name in imports(path):
            assert not name.startswith(tuple(f"{PACKAGE}.{p}" for p in ("arguments", "choice", "runtime"))), (
                f"{path.relative_to(LOCAL)} imports {name}"
            )


def test_the_argument_code_reaches_other_languages_only_through_the_registry() -> None:
    for path in (LOCAL / "arguments").rglob("*.py"):
        for name in imports(path):
            if name.startswith(f"{PACKAGE}.languages."):
                assert name.startswith(f"{PACKAGE}.languages.en"), f"{path.relative_to(LOCAL)} imports {name}"
