"""The wheel's promises that a test can keep without building one (.ci/wheel builds it): every
third-party module the product imports is a declared dependency, and a CLI plugin that is declared
but not importable is simply absent."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _top_level_imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_every_third_party_import_of_the_product_is_a_declared_dependency() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {
        _canonical(re.split(r"[\s\[<>=!~;]", spec, maxsplit=1)[0]) for spec in project["dependencies"]
    }
    providers = packages_distributions()
    imported: dict[str, set[str]] = {}
    for path in sorted((ROOT / "shadowswitch").rglob("*.py")):
        for name in _top_level_imports(path) - set(sys.stdlib_module_names) - {"shadowswitch", "__future__"}:
            imported.setdefault(name, set()).add(str(path.relative_to(ROOT)))
    assert "sqlalchemy" in imported and "fastapi" in imported  # the scan sees imports at all
    undeclared = {
        module: sorted(files)
        for module, files in imported.items()
        if not {_canonical(dist) for dist in providers.get(module, [])} & declared
    }
    assert undeclared == {}, f"imported by the product, missing from [project].dependencies: {undeclared}"


def _help_with_plugin(tmp_path: Path, module_source: str | None) -> subprocess.CompletedProcess[str]:
    """`shadowswitch --help` with one more installed distribution declaring a plugin `extra`,
    whose module `ghostplugin` holds `module_source` (None: the module is not there at all)."""
    dist_info = tmp_path / "ghost_plugin-1.0.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text("Metadata-Version: 2.1\nName: ghost-plugin\nVersion: 1.0\n")
    (dist_info / "entry_points.txt").write_text("[shadowswitch.cli]\nextra = ghostplugin:app\n")
    if module_source is not None:
        (tmp_path / "ghostplugin.py").write_text(module_source)
    path = os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", ""), str(ROOT)])
    return subprocess.run(
        [sys.executable, "-m", "shadowswitch.cli", "--help"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": path, "COLUMNS": "200"},
        timeout=120,
    )


@pytest.mark.integration  # starts a process
def test_a_plugin_that_is_declared_but_not_installed_is_absent_from_help(tmp_path: Path) -> None:
    out = _help_with_plugin(tmp_path, None)
    assert out.returncode == 0, out.stderr
    assert "db" in out.stdout
    assert "extra" not in out.stdout


@pytest.mark.integration  # starts a process
def test_a_plugin_that_is_installed_is_mounted(tmp_path: Path) -> None:
    source = (
        "import typer\n"
        'app = typer.Typer(help="The ghost plugin.")\n'
        "@app.command()\n"
        "def hello() -> None:\n"
        "    pass\n"
    )
    out = _help_with_plugin(tmp_path, source)
    assert out.returncode == 0, out.stderr
    assert "The ghost plugin." in out.stdout


@pytest.mark.integration  # starts a process
def test_a_plugin_missing_its_own_dependency_is_an_error_not_silence(tmp_path: Path) -> None:
    out = _help_with_plugin(tmp_path, "import no_such_dependency_of_the_plugin  # noqa: F401\n")
    assert out.returncode != 0
    assert "no_such_dependency_of_the_plugin" in out.stderr
