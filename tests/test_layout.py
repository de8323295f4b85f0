"""Import directions: the product never imports the lab (research/ imports shadowswitch, never
the other way); the domains never import the web layer; only the edges touch torch, the network
or the database; the tests share their helpers through tests/support only."""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAB = ("research", "examples", "tests", "bench")


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_no_product_module_imports_the_lab() -> None:
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sorted((ROOT / "shadowswitch").rglob("*.py"))
        for name in imported_modules(path)
        if name.split(".")[0] in LAB
    ]
    assert offenders == []


WEB_LAYER = (
    "shadowswitch.api",
    "shadowswitch.server.app",
    "shadowswitch.proxy.pipeline",
    "shadowswitch.cli",
    "fastapi",
    "starlette",
)
# What touches torch, the network or the database. `sqlalchemy.exc` is not: catching the
# database's error type is how a pure step says "the database is away".
EFFECTS = ("torch", "transformers", "litellm", "llama_cpp", "httpx", "openai", "requests", "sqlalchemy")
EFFECTS += ("sqlmodel", "alembic", "psycopg", "psycopg2", "sqlite3", "huggingface_hub")
EDGES = ("shadowswitch/engines/", "shadowswitch/store/", "shadowswitch/rollouts/store/")
# The CLI is a client of a running proxy (httpx) and starts the server: an edge of its own.
CLIENTS = ("shadowswitch/cli/",)


def product_modules(*folders: str) -> list[Path]:
    return sorted(path for folder in folders for path in (ROOT / "shadowswitch" / folder).rglob("*.py"))


def within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def test_the_domains_never_import_the_web_layer() -> None:
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in product_modules("analysis", "answers", "rollouts")
        for name in imported_modules(path)
        if within(name, WEB_LAYER)
    ]
    assert offenders == []


def test_only_the_edges_touch_torch_the_network_or_the_database() -> None:
    offenders = [
        f"{relative} imports {name}"
        for path in product_modules("")
        if not (relative := path.relative_to(ROOT).as_posix()).startswith(EDGES + CLIENTS)
        for name in imported_modules(path)
        if within(name, EFFECTS) and not within(name, ("sqlalchemy.exc",))
    ]
    assert offenders == []


def test_the_layout_test_sees_an_offender(tmp_path: Path) -> None:
    """The checks above read real imports, nested ones too: a module breaking a rule is caught."""
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    import torch.nn\n    from shadowswitch.api import chat\n", encoding="utf-8")
    names = imported_modules(bad)
    assert any(within(name, EFFECTS) for name in names)
    assert any(within(name, WEB_LAYER) for name in names)


def test_the_lab_imports_the_product_and_not_the_tests() -> None:
    imports = {name for path in (ROOT / "research").rglob("*.py") for name in imported_modules(path)}
    assert any(name.startswith("shadowswitch") for name in imports)
    assert not any(name.split(".")[0] == "tests" for name in imports)


@pytest.mark.integration  # a fresh interpreter
def test_importing_every_product_module_loads_no_lab_module() -> None:
    """The same, as Python sees it: import all of shadowswitch in a fresh interpreter (the alembic
    migrations aside: they run only inside alembic, and their file names are not module names)."""
    modules = [
        ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for path in sorted((ROOT / "shadowswitch").rglob("*.py"))
        if "migrations" not in path.relative_to(ROOT).parts[:-1]
    ]
    script = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('research', 'examples', 'tests')))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT / "tests")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


@pytest.mark.integration  # the CLI in a process of its own
def test_the_bench_command_reaches_the_cli_as_a_plugin() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "shadowswitch.cli", "bench", "--help"], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert "bfcl" in out.stdout


def test_tests_share_helpers_only_through_tests_support() -> None:
    """A test module imports no other test module (nor conftest): what tests share is in tests/support."""
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sorted((ROOT / "tests").rglob("*.py"))
        if "support" not in path.relative_to(ROOT / "tests").parts
        for name in imported_modules(path)
        if name.split(".")[0] == "tests" and not name.startswith("tests.support")
    ]
    assert offenders == []


def test_a_product_module_over_300_lines_says_why() -> None:
    """STYLE: small modules named after what they do; a long one states its reason (the word
    "lines" in its docstring, with the reason)."""
    long = []
    for path in sorted((ROOT / "shadowswitch").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > 300 and "lines" not in (ast.get_docstring(ast.parse(text)) or ""):
            long.append(f"{path.relative_to(ROOT)}: {text.count(chr(10))} lines")
    assert not long, long


# -- the Rollout aggregate owns its state changes ---------------------------------------------------

AGGREGATE = "shadowswitch/rollouts/rollout.py"
REPOSITORY = "shadowswitch/rollouts/store/repository.py"
ROWS = "shadowswitch/rollouts/store/rows.py"  # the aggregate ↔ row mapping: loads and copies, decides nothing
LEARNING_EVENTS = "shadowswitch/store/exemplars.py"  # learning's own audit events (promote, rollback)


@functools.cache
def parsed_modules() -> list[tuple[str, ast.Module]]:
    return [
        (path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(encoding="utf-8")))
        for path in sorted((ROOT / "shadowswitch").rglob("*.py"))
        if "migrations" not in path.parts
    ]


def aliases(tree: ast.Module, module: str, name: str) -> set[str]:
    """The local names `name` of `module` is imported as."""
    return {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == module
        for alias in node.names
        if alias.name == name
    }


def called(node: ast.AST) -> str | None:
    """The name a call calls: `f(...)` → f, `x.f(...)` → f."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def set_columns(node: ast.AST) -> list[str]:
    """The rollout row's columns an assignment sets as attributes (`row.mode = ...`; `self.x` aside)."""
    from shadowswitch.store.tables import Rollout as RolloutRow

    targets = node.targets if isinstance(node, ast.Assign) else []
    targets += [node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign) else []
    return [
        target.attr
        for target in (e for t in targets for e in (t.elts if isinstance(t, ast.Tuple) else [t]))
        if isinstance(target, ast.Attribute)
        and target.attr in set(RolloutRow.model_fields) - {"task_type"}
        and not (isinstance(target.value, ast.Name) and target.value.id == "self")
    ]


def rollout_changes(relative: str, tree: ast.Module) -> list[str]:
    """What in one module changes a rollout's state other than through the aggregate's methods."""
    from shadowswitch.rollouts.rollout import Rollout

    state_fields = {f for f in Rollout.__dataclass_fields__ if f != "task_type"}
    parts = ("Rollout", "RampPosition", "PolicySeen")
    built = {a for p in parts for a in aliases(tree, "shadowswitch.rollouts.rollout", p)}
    rows = aliases(tree, "shadowswitch.store.tables", "Rollout")
    found = []
    for node in ast.walk(tree):
        found += [
            f"{relative}:{getattr(node, 'lineno', 0)} sets a rollout row's {attr}"
            for attr in set_columns(node)
        ]
        name = called(node)
        if not isinstance(node, ast.Call) or name is None:
            continue
        if name == "replace" and {k.arg for k in node.keywords} & state_fields:
            found.append(f"{relative}:{node.lineno} replaces a rollout's state")
        if name in built and relative not in (AGGREGATE, ROWS):
            found.append(f"{relative}:{node.lineno} builds a rollout state: {name}")
        written = [*node.args, *(k.value for k in node.keywords)]
        whole = len(written) == 1 and called(written[0]) == "columns"
        if (name == "sqlmodel_update" or name in rows) and not whole:
            found.append(f"{relative}:{node.lineno} writes a rollout row with other than columns(...)")
    return found


def test_only_the_rollout_aggregate_changes_a_rollouts_state() -> None:
    """A rollout's state changes in rollouts/rollout.py only (its methods return the new state);
    rows are written whole from `columns(...)` of that state, by the repository alone."""
    modules = parsed_modules()
    offenders = [
        found
        for relative, tree in modules
        if relative != AGGREGATE
        for found in rollout_changes(relative, tree)
    ]
    assert offenders == []
    aggregate = dict(modules)[AGGREGATE]
    assert any(called(n) == "replace" for n in ast.walk(aggregate)), "the check would see a change"
    writers = {r for r, tree in modules for n in ast.walk(tree) if called(n) == "sqlmodel_update"}
    assert writers == {REPOSITORY}


def test_the_rollout_check_sees_an_offender() -> None:
    bad = (
        "from shadowswitch.store.tables import Rollout\n"
        "from shadowswitch.rollouts.rollout import RampPosition\n"
        "def f(row, state):\n"
        "    row.mode, row.percent = 'canary', 5\n"
        "    row.sqlmodel_update({'ramp_state': 'done'})\n"
        "    Rollout(task_type='t', mode='off')\n"
        "    RampPosition('running')\n"
        "    return replace(state, percent=5)\n"
    )
    found = rollout_changes("bad.py", ast.parse(bad))
    assert len(found) == 6 and all(f.startswith("bad.py:") for f in found)


def test_a_rollouts_audit_events_are_built_in_one_place() -> None:
    builders = {
        relative
        for relative, tree in parsed_modules()
        if (names := aliases(tree, "shadowswitch.store.tables", "AuditEvent"))
        and any(called(node) in names for node in ast.walk(tree))
    }
    assert builders - {LEARNING_EVENTS} == {REPOSITORY}
