"""Commands other than `db upgrade` never create or migrate a database; they say what to run."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import inspect
from typer.testing import CliRunner

from shadowswitch.cli import app as cli
from shadowswitch.store import db


@pytest.mark.parametrize("command", [["rollout", "status"], ["report"], ["db", "prune"]])
def test_a_missing_database_is_not_created(tmp_path: Path, command: list[str]) -> None:
    path = tmp_path / "none.db"
    result = CliRunner().invoke(cli, [*command, "--db", f"sqlite:///{path}"])
    assert result.exit_code == 1
    assert "shadowswitch db upgrade" in result.output
    assert not path.exists()


def test_an_empty_database_is_left_as_it_is_until_db_upgrade(db_url: str) -> None:
    engine = db.make_engine(db_url)
    with engine.connect():  # the database exists (SQLite: the file), with no schema yet
        pass
    runner = CliRunner()
    empty = runner.invoke(cli, ["rollout", "status", "--db", db_url])
    assert empty.exit_code == 1 and "db upgrade" in empty.output, empty.output
    assert inspect(engine).get_table_names() == []
    assert runner.invoke(cli, ["db", "upgrade", "--db", db_url]).exit_code == 0
    status = runner.invoke(cli, ["rollout", "status", "--db", db_url])
    assert status.exit_code == 0 and "no task types yet" in status.output


def test_a_database_behind_is_left_as_it_is_until_db_upgrade(db_url: str) -> None:
    db.upgrade(db_url, "0002")  # the schema a previous version left
    runner = CliRunner()
    behind = runner.invoke(cli, ["report", "--db", db_url])
    assert behind.exit_code == 1 and "is at 0002" in behind.output, behind.output
    assert "prompt" not in {c["name"] for c in inspect(db.make_engine(db_url)).get_columns("decision")}
    assert runner.invoke(cli, ["db", "upgrade", "--db", db_url]).exit_code == 0
    assert runner.invoke(cli, ["report", "--db", db_url]).exit_code == 0
