"""Closed by default: `serve` on an address other machines reach starts only with agent keys in
force (a key made, or SHADOWSWITCH_AGENT_AUTH=required) or `--insecure`, which it logs; and the
keys commands' JSON, for scripts that provision agents."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import httpx
import pytest
import typer
from typer.testing import CliRunner

from shadowswitch.cli import app as cli
from shadowswitch.cli.serving import closed_by_default
from shadowswitch.server.settings import Settings
from tests.support.policies import TRAVEL, write_policies
from tests.support.replicas import BIN
from tests.support.servers import free_port
from tests.support.wait import eventually

ADMIN_ENV = {"SHADOWSWITCH_ADMIN_TOKEN": "closed-door-admin"}
SHOWN = {"name", "prefix", "task_types", "rpm", "budget_usd_per_day"}


def run(*args: str, env: dict[str, str] | None = None) -> str:
    result = CliRunner().invoke(cli, list(args), env=env)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture
def db(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'door.db'}"
    run("db", "upgrade", "--db", url)
    return url


def test_keys_create_and_list_say_json(db: str) -> None:
    limits = ["--task-types", "b,a", "--rpm", "7", "--budget-usd-per-day", "1.5"]
    made = json.loads(run("keys", "create", "provisioned", *limits, "--json", "--db", db))
    assert set(made) == SHOWN | {"key"} and made["key"].startswith("ss-")
    assert (made["name"], made["prefix"], made["task_types"], made["rpm"], made["budget_usd_per_day"]) == (
        "provisioned",
        made["key"][:10],
        ["a", "b"],
        7,
        1.5,
    )
    listed = json.loads(run("keys", "list", "--json", "--db", db))
    assert [{k: entry[k] for k in SHOWN} for entry in listed] == [{k: made[k] for k in SHOWN}]
    assert made["key"] not in json.dumps(listed) and "key" not in listed[0]


def test_serve_on_a_network_address_without_agent_keys_refuses_naming_the_ways_forward(
    tmp_path: Path, db: str
) -> None:
    refused = CliRunner().invoke(
        cli, ["serve", "--host", "0.0.0.0", "--policies", str(tmp_path), "--db", db], env=ADMIN_ENV
    )
    said = " ".join(refused.output.split())
    assert refused.exit_code == 2, refused.output
    assert "no agent key is in force" in said and "SHADOWSWITCH_ADMIN_TOKEN" not in said
    assert "shadowswitch keys create NAME" in said and "SHADOWSWITCH_AGENT_AUTH=required" in said
    assert "--insecure" in said


def test_keys_required_keeps_the_door_closed_before_any_key_exists(db: str) -> None:
    settings = Settings(db_url=db, host="0.0.0.0", admin_token="t", agent_auth="required")
    closed_by_default(settings, insecure=False)  # starts: no refusal
    with pytest.raises(typer.Exit):
        closed_by_default(Settings(db_url=db, host="0.0.0.0", admin_token="t"), insecure=False)


def serve(tmp_path: Path, upstream: str, db: str, *flags: str) -> tuple[str, str]:
    """`serve --host 0.0.0.0` as a process, until ready; its log. It is stopped before returning."""
    port = free_port()
    policies = write_policies(tmp_path / "policies", upstream, TRAVEL)
    log = tmp_path / f"serve-{port}.log"
    command = [BIN, "serve", "--host", "0.0.0.0", "--port", str(port), "--policies", policies, "--db", db]
    with log.open("w") as out:
        process = subprocess.Popen(
            [str(c) for c in [*command, "--no-models", *flags]],
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, **ADMIN_ENV},
        )
    try:
        url = f"http://127.0.0.1:{port}"

        def ready() -> bool:
            assert process.poll() is None, log.read_text()
            try:
                return httpx.get(url + "/readyz", timeout=2).status_code == 200
            except httpx.HTTPError:
                return False

        eventually(ready, timeout_s=60, interval_s=0.2, what="serve on 0.0.0.0 ready")
        return url, log.read_text()
    finally:
        process.terminate()
        process.wait(30)


@pytest.mark.integration
@pytest.mark.parametrize("way", ["a key made", "--insecure"])
def test_serve_on_a_network_address_starts_with_agent_keys_in_force_or_insecure(
    tmp_path: Path, upstream: str, db: str, way: str
) -> None:
    if way == "a key made":
        run("keys", "create", "first", "--db", db)
    _, log = serve(tmp_path, upstream, db, *(["--insecure"] if way == "--insecure" else []))
    warned = [line for line in log.splitlines() if "--insecure on 0.0.0.0" in line]
    if way == "--insecure":
        assert len(warned) == 1 and "WARNING" in warned[0] and "no agent key is in force" in warned[0]
    else:
        assert not warned
