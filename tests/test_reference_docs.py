"""The generated reference docs are current: docs/openapi.json, docs/cli.md and the layout in
docs/README.md match the code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shadowswitch.cli import plugin_commands
from shadowswitch.cli.layout import BEGIN, END, layout_md, splice
from shadowswitch.cli.reference import cli_md, main, openapi_json

ROOT = Path(__file__).resolve().parent.parent


def test_docs_openapi_json_is_current() -> None:
    rendered = openapi_json()
    assert (ROOT / "docs/openapi.json").read_text(encoding="utf-8") == rendered, "stale: run `make docs`"
    paths = json.loads(rendered)["paths"]
    assert "/v1/chat/completions" in paths and "/v1/shadowswitch/feedback" in paths


def test_docs_cli_md_is_current() -> None:
    if not {"bench", "demo"} <= set(plugin_commands()):
        pytest.skip("the repository's plugins are not installed beside the product")
    rendered = cli_md()
    assert (ROOT / "docs/cli.md").read_text(encoding="utf-8") == rendered, "stale: run `make docs`"
    for command in ("shadowswitch serve", "shadowswitch policy schema", "shadowswitch rollout ramp"):
        assert f"`{command}`" in rendered


def test_check_names_a_stale_file_and_writing_makes_it_current(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(
        "shadowswitch.cli.reference.GENERATED", {"docs/policies.md": lambda: "the reference\n"}
    )
    monkeypatch.setattr("shadowswitch.cli.reference.SPLICED", {})
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/policies.md").write_text("an old reference\n", encoding="utf-8")
    assert main(["--check"]) == 1
    assert "stale: docs/policies.md" in capsys.readouterr().out
    assert main([]) == 0
    assert main(["--check"]) == 0
    assert (tmp_path / "docs/policies.md").read_text(encoding="utf-8") == "the reference\n"


def test_the_layout_in_docs_readme_is_current_and_names_every_package() -> None:
    page = (ROOT / "docs/README.md").read_text(encoding="utf-8")
    assert splice(page, layout_md()) == page, "stale: run `make docs`"
    block = page[page.index(BEGIN) : page.index(END)]
    package = ROOT / "shadowswitch"
    for init in package.rglob("*/__init__.py"):
        name = init.parent.name + "/"
        assert f"  {name} " in block or f"  {name}\n" in block, init.parent.relative_to(package)
    assert "(no docstring)" not in block, "every package says what it is for in its docstring"


def test_the_layout_follows_the_tree(tmp_path: Path) -> None:
    """A package added to the tree shows in the layout with its docstring's first sentence."""
    root = tmp_path / "shadowswitch"
    (root / "billing" / "ledger").mkdir(parents=True)
    (root / "__init__.py").write_text('"""The product."""\n')
    (root / "billing" / "__init__.py").write_text('"""What each key spent. Details follow."""\n')
    (root / "billing" / "ledger" / "__init__.py").write_text("")
    (root / "errors.py").write_text('"""One error tree."""\n')
    block = layout_md(root)
    assert "  billing/" in block and "What each key spent." in block and "Details" not in block
    assert "    ledger/" in block and "(no docstring)" in block
    assert block.index("billing/") < block.index("errors.py")
    page = f"# Docs\n\n{BEGIN}\nold\n{END}\n\nafter\n"
    assert splice(page, block) == f"# Docs\n\n{block}\n\nafter\n"
    with pytest.raises(ValueError, match="no generated block"):
        splice("# Docs\n", block)
