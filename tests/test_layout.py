"""Import directions: the product never imports the lab (bench/ imports shadowswitch, never
the other way); no two of its packages import each other; the layers point down the data flow
and the engine never imports learning; the domains never import the web layer; only the edges
touch torch, the network or the database; the tests share their helpers through tests/support
only. The package's own imports are read by grimp (every import, nested ones too)."""

from __future__ import annotations

import ast
import functools
import itertools
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import grimp
import pytest

import shadowswitch

ROOT = Path(__file__).resolve().parents[1]
LAB = ("bench", "examples", "tests")


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


# The layers of the request's data flow (STYLE.md): each may import those below it, never above.
# engines/, rollouts/ and learning/ share one; learning/ may import the engine, never the reverse.
SHARED = ("shadowswitch.engines", "shadowswitch.rollouts", "shadowswitch.learning")
LAYERS = (
    "shadowswitch.api",
    "shadowswitch.proxy",
    grimp.Layer(*SHARED, independent=False),
    "shadowswitch.store",
)
# Arrows between packages that point against the flow and close a circle, not yet undone, each with
# the import behind it. Any other circle fails the test, and so does one of these once the arrow
# is gone: strike it here.
KNOWN_BACKWARD: dict[tuple[str, str], str] = {}


def import_graph(package: str = "shadowswitch", runtime: bool = False) -> grimp.ImportGraph:
    """A package's imports of itself, read from its source (a fraction of a second); `runtime`:
    those made only for type checking (`if TYPE_CHECKING:`) left out."""
    return grimp.build_graph(package, exclude_type_checking_imports=runtime, cache_dir=None)


@functools.cache
def product_graph() -> grimp.ImportGraph:
    assert Path(shadowswitch.__file__).parent == ROOT / "shadowswitch"  # this tree, not another copy
    return import_graph()


def package_arrows(package: str, runtime: bool = True) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """Which of `package`'s parts (subpackages and root modules) imports which, with the module
    imports behind each arrow. An entry point (`__main__`) is a program of its own that nothing
    imports: left out."""
    graph = import_graph(package, runtime)
    part = {m: p for p in graph.find_children(package) for m in {p, *graph.find_descendants(p)}}
    arrows: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for module in sorted(m for m in part if not m.endswith(".__main__")):
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported in part and part[imported] != part[module]:
                arrows.setdefault((part[module], part[imported]), []).append((module, imported))
    return arrows


def shortest_round(ahead: dict[str, set[str]], start: str) -> tuple[str, ...] | None:
    """The shortest way along the arrows from `start` back to it, or None."""
    came: dict[str, str] = {}
    queue = [start]
    for node in queue:
        for step in sorted(ahead.get(node, ())):
            if step == start:
                way = [node]
                while way[-1] != start:
                    way.append(came[way[-1]])
                return (*reversed(way), start)
            if step not in came:
                came[step] = node
                queue.append(step)
    return None


def circles(arrows: Iterable[tuple[str, str]]) -> list[tuple[str, ...]]:
    """The circles the arrows make: through each part, the shortest, from its first part by name."""
    ahead: dict[str, set[str]] = {}
    for a, b in arrows:
        ahead.setdefault(a, set()).add(b)
    found = set()
    for start in ahead:
        if (way := shortest_round(ahead, start)) is not None:
            parts = way[:-1]
            first = parts.index(min(parts))
            found.add((*parts[first:], *parts[:first], parts[first]))
    return sorted(found)


def test_no_two_packages_import_each_other() -> None:
    """Counted on the imports that run: a name imported only for type checking is an object the
    process builds and passes in (Settings, Metrics, a store); it loads nothing."""
    arrows = package_arrows("shadowswitch")
    assert [arrow for arrow in KNOWN_BACKWARD if arrow not in arrows] == []  # undone: strike it
    left = {arrow: imports for arrow, imports in arrows.items() if arrow not in KNOWN_BACKWARD}
    found = circles(left)
    assert found == [], [[left[hop] for hop in itertools.pairwise(circle)] for circle in found]


def test_the_engine_never_imports_learning() -> None:
    """On every import, those for type checking too: the engine defines the learned state it reads
    (engines/local/learned_state.py), and learning/ implements it."""
    graph = product_graph()
    engines, learning = "shadowswitch.engines", "shadowswitch.learning"
    assert graph.find_shortest_chains(engines, learning, as_packages=True) == set()
    assert graph.direct_import_exists(importer=learning, imported=engines, as_packages=True)


def test_the_layers_point_down_the_data_flow() -> None:
    """api → proxy → engines, rollouts, learning → store, on every import, through any module."""
    illegal = product_graph().find_illegal_dependencies_for_layers(layers=LAYERS)
    assert sorted(f"{d.importer} -> {d.imported}: {d.routes}" for d in illegal) == []


def test_the_graph_checks_see_an_offender(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A package whose parts import each other is caught, through a third part too, and a layer
    importing the one above it; an import made only for type checking is not counted as a circle."""
    files = {
        "api/__init__.py": "from toy import store\n",
        "proxy/__init__.py": "from toy import api\n",  # up a layer
        "store/__init__.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from toy import api\n",
        "a.py": "from toy import b\n",
        "b.py": "from toy import c\n",
        "c.py": "from toy import a\n",
    }
    for name, text in {"__init__.py": "", **files}.items():
        (tmp_path / "toy" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "toy" / name).write_text(text, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert circles(package_arrows("toy")) == [("toy.a", "toy.b", "toy.c", "toy.a")]
    assert ("toy.api", "toy.store", "toy.api") in circles(package_arrows("toy", runtime=False))
    illegal = import_graph("toy").find_illegal_dependencies_for_layers(
        layers=("toy.api", "toy.proxy", "toy.store")
    )
    assert {(d.importer, d.imported) for d in illegal} == {("toy.proxy", "toy.api"), ("toy.store", "toy.api")}


def test_the_names_the_layout_checks_exist() -> None:
    """A check naming a module that moved would pass on nothing: every name here is in the tree."""
    modules = product_graph().modules
    named = [*SHARED, "shadowswitch.api", "shadowswitch.proxy", "shadowswitch.store"]
    named += [n for n in WEB_LAYER if n.startswith("shadowswitch.")]
    named += [n for arrow in KNOWN_BACKWARD for n in arrow]
    assert [n for n in named if n not in modules] == []
    assert [f for f in EDGES + CLIENTS if not (ROOT / f).exists()] == []


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
EDGES = (
    "shadowswitch/engines/",
    "shadowswitch/store/",
    "shadowswitch/rollouts/store/",
    "shadowswitch/access/store.py",
)
# The CLI is a client of a running proxy (httpx) and starts the server: an edge of its own.
CLIENTS = ("shadowswitch/cli/",)


def product_modules(*folders: str) -> list[Path]:
    return sorted(path for folder in folders for path in (ROOT / "shadowswitch" / folder).rglob("*.py"))


def within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def test_the_domains_never_import_the_web_layer() -> None:
    """Not even through another module of the package."""
    domains = ("analysis", "answers", "rollouts")
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in product_modules(*domains)
        for name in imported_modules(path)
        if within(name, WEB_LAYER)
    ]
    assert offenders == []
    graph = product_graph()
    chains = [
        chain
        for domain, web in itertools.product(domains, WEB_LAYER)
        if web.startswith("shadowswitch.")
        for chain in graph.find_shortest_chains(f"shadowswitch.{domain}", web, as_packages=True)
    ]
    assert chains == []


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
    imports = {name for path in (ROOT / "bench").rglob("*.py") for name in imported_modules(path)}
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
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('bench', 'examples', 'tests')))\n"
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


# The product modules past 300 lines, each held under a ceiling a little above its size today: a
# module grows past 300 only by being listed here in review, and shrinks by being split.
LONG_MODULES = {
    "shadowswitch/policy/models.py": 560,
    "shadowswitch/engines/local/decider.py": 435,
    "shadowswitch/engines/local/arguments/filler.py": 375,
    "shadowswitch/learning/head.py": 375,
    "shadowswitch/proxy/pipeline.py": 350,
    "shadowswitch/server/app.py": 355,
    "shadowswitch/engines/local/arguments/features.py": 350,
    "shadowswitch/learning/challenger.py": 375,
    "shadowswitch/api/responses.py": 325,
    "shadowswitch/store/spool.py": 325,
}


def test_no_product_module_grows_past_its_ceiling() -> None:
    """STYLE: small modules named after what they do (under ~300 lines); a docstring says what a
    module does, not why it is long."""
    long = []
    for path in sorted((ROOT / "shadowswitch").rglob("*.py")):
        name, lines = path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8").count("\n")
        if lines > LONG_MODULES.get(name, 300):
            long.append(f"{name}: {lines} lines (ceiling {LONG_MODULES.get(name, 300)})")
    assert not long, long
    short = [n for n in LONG_MODULES if not (ROOT / n).exists() or (ROOT / n).read_text().count("\n") <= 300]
    assert not short, f"split or gone: take them out of LONG_MODULES: {short}"


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
