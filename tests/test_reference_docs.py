"""The generated reference docs are current: docs/openapi.json and docs/cli.md match the code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shadowswitch.cli import plugin_commands
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
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/policies.md").write_text("an old reference\n", encoding="utf-8")
    assert main(["--check"]) == 1
    assert "stale: docs/policies.md" in capsys.readouterr().out
    assert main([]) == 0
    assert main(["--check"]) == 0
    assert (tmp_path / "docs/policies.md").read_text(encoding="utf-8") == "the reference\n"
