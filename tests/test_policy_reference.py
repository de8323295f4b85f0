"""docs/policies.md is `shadowswitch policy schema`'s output, and what it shows is true."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import BaseModel
from typer.testing import CliRunner

from shadowswitch.cli import app as cli
from shadowswitch.policy.models import Action, Defaults, Engine, Policy
from shadowswitch.policy.reference import ACTIONS_EXAMPLE, EXAMPLE, sections

ROOT = Path(__file__).resolve().parent.parent
MODELS = [*sections(Policy, "").values(), Defaults]
# The least each model needs besides the field under test.
REQUIRED: dict[type[BaseModel], dict[str, Any]] = {
    Policy: {"task_type": "t"},
    Action: {"id": "a", "description": "Do a", "output": "a"},
    # remote addresses and `backend: remote` name each other: each example is read with both
    Engine: {"backend": "remote", "remote": {"scoring_url": "http://127.0.0.1:8000/v1"}},
}


def test_docs_policies_md_is_current() -> None:
    result = CliRunner().invoke(cli, ["policy", "schema"])
    assert result.exit_code == 0, result.output
    current = (ROOT / "docs/policies.md").read_text(encoding="utf-8")
    assert current == result.output, "docs/policies.md is stale: run `make docs`"


def test_the_json_format_is_the_policy_files_schema() -> None:
    result = CliRunner().invoke(cli, ["policy", "schema", "--format", "json"])
    assert result.exit_code == 0, result.output
    schema = json.loads(result.output)
    assert schema["required"] == ["task_type"]
    assert schema["additionalProperties"] is False
    assert set(schema["properties"]) == set(Policy.model_fields)


def test_an_unknown_format_is_refused() -> None:
    result = CliRunner().invoke(cli, ["policy", "schema", "--format", "xml"])
    assert result.exit_code == 2
    assert "markdown or json" in result.output


@pytest.mark.parametrize("text", [EXAMPLE, ACTIONS_EXAMPLE])
def test_the_examples_load_as_policies(text: str) -> None:
    Policy.model_validate(yaml.safe_load(text))


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_every_field_is_described_and_its_example_is_valid(model: type[BaseModel]) -> None:
    assert model.__doc__, f"{model.__name__} has no docstring for its section"
    for name, field in model.model_fields.items():
        assert field.description, f"{model.__name__}.{name} has no description"
        for example in field.examples or []:
            model.model_validate({**REQUIRED.get(model, {}), name: example})
