"""The rollout admin surface: the API (bearer token), the CLI and the audit log act on one state."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from shadowswitch.cli import app as cli
from tests.support.clients import TASK, breaker_is, client, metric
from tests.support.policies import travel
from tests.support.wait import eventually

TOKEN = "s3cret-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def put(url: str, body: Any, headers: dict[str, str] | None = None, task: str = TASK) -> httpx.Response:
    return httpx.put(f"{url}/v1/shadowswitch/rollouts/{task}", json=body, headers=headers or {})


def state(url: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    rollout = httpx.get(f"{url}/v1/shadowswitch/rollouts/{TASK}", headers=AUTH).json()
    return rollout, httpx.get(f"{url}/v1/shadowswitch/audit", headers=AUTH).json()


def test_no_token_configured_means_403_and_nothing_changes(proxy: Any) -> None:
    url = proxy(travel())
    before = state(url)
    response = put(url, {"percent": 50}, AUTH)
    assert response.status_code == 403
    assert response.json()["error"]["type"] == "permission_error"
    assert state(url) == before


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}, {"Authorization": "Basic " + TOKEN}],
)
def test_missing_or_wrong_token_is_401_and_nothing_changes(proxy: Any, headers: dict[str, str]) -> None:
    url = proxy(travel(), admin_token=TOKEN)
    before = state(url)
    response = put(url, {"percent": 50, "reason": "sneaky"}, headers)
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    assert response.json()["error"]["type"] == "authentication_error"
    assert state(url) == before


@pytest.mark.parametrize(
    "body",
    [
        {"percent": 150},
        {"percent": -1},
        {"percent": "half"},
        {"mode": "fast"},
        {"mode": None, "percent": None},
        {},
        {"percent": 10, "colour": "red"},
    ],
)
def test_bad_change_is_422_and_nothing_changes(proxy: Any, body: dict[str, Any]) -> None:
    url = proxy(travel(), admin_token=TOKEN)
    before = state(url)
    response = put(url, body, AUTH)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["type"] == "invalid_request_error"
    assert state(url) == before


def test_not_json_is_400_and_unknown_task_is_404(proxy: Any) -> None:
    url = proxy(travel(), admin_token=TOKEN)
    bad = httpx.put(f"{url}/v1/shadowswitch/rollouts/{TASK}", content=b"{nope", headers=AUTH)
    assert bad.status_code == 400
    assert put(url, {"percent": 5}, AUTH, task="no_such_task").status_code == 404
    assert httpx.get(f"{url}/v1/shadowswitch/rollouts/no_such_task", headers=AUTH).status_code == 404


def test_a_change_is_applied_audited_and_live_at_once(proxy: Any) -> None:
    url = proxy({**travel(), "rollout": {"mode": "shadow"}}, admin_token=TOKEN)
    response = put(url, {"mode": "canary", "percent": 25, "reason": "first canary"}, AUTH)
    assert response.status_code == 200
    assert response.json()["mode"] == "canary" and response.json()["percent"] == 25
    assert metric(url, "shadowswitch_rollout_percent", task_type=TASK) == 25  # this replica, already
    rollouts = httpx.get(f"{url}/v1/shadowswitch/rollouts", headers=AUTH).json()
    assert [(r["task_type"], r["mode"], r["percent"]) for r in rollouts] == [(TASK, "canary", 25)]
    latest = httpx.get(f"{url}/v1/shadowswitch/audit", params={"task": TASK, "limit": 1}, headers=AUTH).json()
    (event,) = latest
    assert event["actor"] == "api:admin" and event["kind"] == "set"
    assert (event["old"], event["new"]) == (
        {"mode": "shadow", "percent": 0.0},
        {"mode": "canary", "percent": 25.0},
    )
    assert event["reason"] == "first canary"


def test_cli_set_is_seen_by_the_server_within_a_second(proxy: Any, db_url: str) -> None:
    url = proxy({**travel(), "rollout": {"mode": "canary", "percent": 10}})
    runner = CliRunner()
    result = runner.invoke(cli, ["rollout", "set", TASK, "--percent", "40", "--reason", "ok", "--db", db_url])
    assert result.exit_code == 0, result.output
    changed = time.monotonic()
    eventually(lambda: metric(url, "shadowswitch_rollout_percent", task_type=TASK) == 40, timeout_s=2)
    assert time.monotonic() - changed < 1.0
    status = runner.invoke(cli, ["rollout", "status", "--json", "--db", db_url])
    data = json.loads(status.output)
    assert data["rollouts"][0]["percent"] == 40
    assert data["rollouts"][0]["breaker"]["state"] == "closed"
    assert data["audit"][0]["actor"].startswith("cli:") and data["audit"][0]["reason"] == "ok"
    assert [e["kind"] for e in data["audit"]] == ["set", "seed"]


def test_cli_rejects_a_bad_change(proxy: Any, db_url: str) -> None:
    proxy(travel())
    runner = CliRunner()
    bad = runner.invoke(cli, ["rollout", "set", TASK, "--percent", "101", "--db", db_url])
    assert bad.exit_code == 1 and "percent" in bad.output
    assert runner.invoke(cli, ["rollout", "set", TASK, "--db", db_url]).exit_code == 2


def test_a_person_closes_an_open_breaker(proxy: Any) -> None:
    from tests.support.clients import feedback
    from tests.support.scripted_engine import ScriptedEngine, local_decisions

    url = proxy(travel(), admin_token=TOKEN, local_factory=ScriptedEngine)
    eventually(lambda: httpx.get(url + "/readyz").status_code == 200)
    for decision_id in local_decisions(url, 3):
        feedback(url, decision_id, success=False)
    assert breaker_is(url, "open")
    assert put(url, {"percent": 100, "reason": "fixed"}, AUTH).status_code == 200
    assert breaker_is(url, "closed")
    _, events = state(url)
    assert events[0]["reason"] == "fixed (closes the open breaker)"
    assert [e["kind"] for e in events[:2]] == ["set", "trip"]


@pytest.mark.parametrize(
    "path", ["/decisions/{id}", "/rollouts", f"/rollouts/{TASK}", "/audit", "/report?since=1h"]
)
def test_with_a_token_reading_needs_it_too(proxy: Any, path: str) -> None:
    url = proxy(travel(), admin_token=TOKEN)
    answer = client(url).chat.completions.with_raw_response.create(
        model="m", messages=[{"role": "user", "content": "hi"}]
    )
    target = url + "/v1/shadowswitch" + path.replace("{id}", answer.headers["x-shadowswitch-decision-id"])
    assert httpx.get(target).status_code == 401
    assert httpx.get(target, headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert httpx.get(target, headers=AUTH).status_code == 200


def test_serve_refuses_to_listen_beyond_loopback_without_a_token(tmp_path: Any) -> None:
    result = CliRunner().invoke(
        cli, ["serve", "--host", "0.0.0.0", "--policies", str(tmp_path), "--db", f"sqlite:///{tmp_path}/x.db"]
    )
    assert (
        result.exit_code == 2
        and "SHADOWSWITCH_ADMIN_TOKEN" in result.output
        and "--insecure" in result.output
    )
