"""`shadowswitch policy check` and `serve` refuse invalid policies with `file:line: field: message`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from shadowswitch.cli import app as cli
from shadowswitch.errors import PolicyError
from shadowswitch.policy import load_policies

GOOD = """\
task_type: pick_tool
upstream:
  model: openai/gpt-4o-mini
rollout:
  mode: canary
  percent: 10
"""


def check(directory: Path) -> Result:
    """`shadowswitch policy check DIRECTORY`, in this process (`serve` below runs in its own)."""
    return CliRunner().invoke(cli, ["policy", "check", str(directory)])


def test_repository_policies_are_valid() -> None:
    result = check(Path(__file__).parents[1] / "policies")
    assert result.exit_code == 0, result.output


def test_valid_directory(tmp_path: Path) -> None:
    (tmp_path / "pick_tool.yaml").write_text(GOOD)
    result = check(tmp_path)
    assert result.exit_code == 0 and "1 policy valid" in result.stdout


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (GOOD + "colour: blue\n", ":7: colour: Extra inputs are not permitted"),
        (
            GOOD.replace("percent: 10", "percent: 150"),
            ":6: rollout.percent: Input should be less than or equal to 100",
        ),
        (
            GOOD.replace("mode: canary", "mode: sometimes"),
            ":5: rollout.mode: Input should be 'off', 'shadow' or 'canary'",
        ),
        (
            GOOD + "match:\n  system_prompt_regex: '(unclosed'\n",
            ":8: match.system_prompt_regex: Value error, invalid regular expression",
        ),
        ("task_type: lonely\n", ":1: upstream: missing"),
        ("task_type: [broken\n", ":2: yaml:"),
        (
            GOOD + "engine:\n  candidates: actions\n",
            ":1: file: Value error, engine.candidates is 'actions' but no actions",
        ),
        (GOOD + "engine:\n  backend: remote\n", ":7: engine: Value error, backend: remote needs remote."),
        (
            GOOD + "engine:\n  remote: {scoring_url: 'http://vllm:8000/v1'}\n",
            ":7: engine: Value error, remote addresses are set but backend is embedded",
        ),
        (
            GOOD + "engine:\n  backend: remote\n  remote: {embeddings_url: tei:8080}\n",
            ":9: engine.remote.embeddings_url: Value error, 'tei:8080' is not an http(s) URL",
        ),
    ],
)
def test_problems_name_file_line_and_field(tmp_path: Path, text: str, expected: str) -> None:
    (tmp_path / "bad.yaml").write_text(text)
    result = check(tmp_path)
    assert result.exit_code == 1
    assert f"{tmp_path / 'bad.yaml'}{expected}" in result.stdout, result.stdout


def test_defaults_supply_the_upstream(tmp_path: Path) -> None:
    (tmp_path / "_defaults.yaml").write_text("upstream:\n  model: openai/x\n  timeout_s: 9\n")
    (tmp_path / "t.yaml").write_text("task_type: t\nupstream:\n  timeout_s: 3\n")
    policy = load_policies(tmp_path).policies["t"]
    assert policy.upstream.model == "openai/x" and policy.upstream.timeout_s == 3


def test_duplicate_task_types(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(GOOD)
    (tmp_path / "b.yaml").write_text(GOOD)
    with pytest.raises(PolicyError, match="defined twice"):
        load_policies(tmp_path)


@pytest.mark.integration  # the real `serve` process
def test_serve_refuses_an_invalid_policy(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(GOOD.replace("percent: 10", "percent: -1"))
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "shadowswitch.cli",
            "serve",
            "--policies",
            str(tmp_path),
            "--db",
            f"sqlite:///{tmp_path / 'x.db'}",
            "--no-models",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert f"{tmp_path / 'bad.yaml'}:6: rollout.percent:" in result.stderr
