"""Policies reload live: through the API, SIGHUP and the CLI, on a real `shadowswitch serve`.

A reload adds task types and applies a rollout changed in a file through the audited path; an
invalid set is refused with `file:line` problems and the old set keeps serving.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
import yaml

from shadowswitch.engines.engine_set import EngineSet
from shadowswitch.policy.models import ModelSource
from tests.support.policies import TOOLS, TRAVEL, write_policies
from tests.support.processes import Served, serve
from tests.support.scripted_engine import ScriptedEngine
from tests.support.wait import eventually

TOKEN = "reload-s3cret"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
ORDERS = {"task_type": "lookup_order", "match": {"model": "orders-agent-step"}, "rollout": {"mode": "shadow"}}
INVALID = """\
task_type: refunds
match:
  model: refunds-step
rollout:
  mode: canary
  percent: -1
"""


def task_of(url: str, model: str, tools: bool = False) -> str:
    """The task type the proxy gave a request, as the real openai SDK sees the response."""
    client = openai.OpenAI(base_url=url + "/v1", api_key="unused", max_retries=0)
    extra: dict[str, Any] = {"tools": TOOLS} if tools else {}
    raw = client.chat.completions.with_raw_response.create(
        model=model, messages=[{"role": "user", "content": "Where is my order AB123456?"}], **extra
    )
    raw.parse()  # a well-formed completion
    return raw.headers["x-shadowswitch-task"]


def rollout(url: str, task: str) -> dict[str, Any]:
    return dict(httpx.get(f"{url}/v1/shadowswitch/rollouts/{task}", headers=AUTH).json())


def audit(url: str) -> list[dict[str, Any]]:
    return list(httpx.get(f"{url}/v1/shadowswitch/audit", headers=AUTH).json())


def edit(policies: Path) -> None:
    """A new task type, and the travel policy's rollout moved from off to canary 20%."""
    (policies / "lookup_order.yaml").write_text(yaml.safe_dump(ORDERS))
    travel = {**TRAVEL, "rollout": {"mode": "canary", "percent": 20}}
    (policies / "pick_tool.yaml").write_text(yaml.safe_dump(travel))


def reload(url: str, headers: dict[str, str] | None = AUTH) -> httpx.Response:
    return httpx.post(f"{url}/v1/shadowswitch/policies/reload", headers=headers, timeout=30)


def cli_reload(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "shadowswitch.cli", "policy", "reload", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def assert_old_set_serves(url: str, audit_before: list[dict[str, Any]]) -> None:
    assert task_of(url, "travel-agent-step", tools=True) == "pick_tool"
    assert task_of(url, "orders-agent-step") == "unclassified"
    assert rollout(url, "pick_tool")["mode"] == "off"
    assert audit(url) == audit_before


@pytest.fixture
def policies(tmp_path: Path, upstream: str) -> Path:
    return write_policies(tmp_path / "policies", upstream, TRAVEL)


@pytest.fixture
def served(policies: Path, db_url: str, tmp_path: Path) -> Any:
    with serve(policies, db_url, tmp_path / "serve.log", "--no-models", SHADOWSWITCH_ADMIN_TOKEN=TOKEN) as s:
        yield s


@pytest.mark.one_backend  # the reload, not the store: audits are tested on both elsewhere
def test_reload_endpoint_adds_a_task_type_and_audits_a_changed_rollout(
    served: Served, policies: Path
) -> None:
    url = served.url
    assert task_of(url, "orders-agent-step") == "unclassified"
    edit(policies)

    assert reload(url, headers={}).status_code == 401  # admin only: nothing reloaded
    assert task_of(url, "orders-agent-step") == "unclassified"

    response = reload(url)
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["added"], body["changed"], body["removed"]) == (["lookup_order"], ["pick_tool"], [])
    assert task_of(url, "orders-agent-step") == "lookup_order"  # at once, no restart
    assert task_of(url, "travel-agent-step", tools=True) == "pick_tool"
    assert (rollout(url, "pick_tool")["mode"], rollout(url, "pick_tool")["percent"]) == ("canary", 20)
    changed = next(e for e in audit(url) if e["task_type"] == "pick_tool" and e["kind"] == "policy")
    assert (changed["actor"], changed["old"], changed["new"]) == (
        "policy",
        {"mode": "off", "percent": 0},
        {"mode": "canary", "percent": 20},
    )
    assert any(e["task_type"] == "lookup_order" and e["kind"] == "seed" for e in audit(url))
    assert "policies reloaded by api:admin" in served.text()

    (policies / "lookup_order.yaml").unlink()  # removed: no longer classified, its rollout kept
    assert reload(url).json()["removed"] == ["lookup_order"]
    assert task_of(url, "orders-agent-step") == "unclassified"
    assert rollout(url, "lookup_order")["mode"] == "shadow"
    assert rollout(url, "lookup_order")["configured"] is False  # said, not hidden
    assert rollout(url, "pick_tool")["configured"] is True


@pytest.mark.one_backend  # the reload, not the store: audits are tested on both elsewhere
def test_an_invalid_set_is_refused_with_file_and_line_and_the_old_set_serves(
    served: Served, policies: Path
) -> None:
    url = served.url
    before = audit(url)
    edit(policies)  # valid changes, refused with the invalid file: all or nothing
    (policies / "refunds.yaml").write_text(INVALID)

    response = reload(url)
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error" and error["code"] == "invalid_policies"
    assert any(p.startswith(f"{policies / 'refunds.yaml'}:6: rollout.percent:") for p in error["problems"])
    assert f"{policies / 'refunds.yaml'}:6: rollout.percent:" in error["message"]
    assert_old_set_serves(url, before)

    refused = cli_reload("--url", url, "--token", TOKEN)
    assert refused.returncode == 1
    assert f"{policies / 'refunds.yaml'}:6: rollout.percent:" in refused.stderr
    assert_old_set_serves(url, before)

    (policies / "refunds.yaml").unlink()
    done = cli_reload("--url", url, "--token", TOKEN)
    assert done.returncode == 0, done.stderr
    assert "added lookup_order" in done.stdout and "changed pick_tool" in done.stdout
    assert task_of(url, "orders-agent-step") == "lookup_order"


@pytest.mark.one_backend  # the reload, not the store: audits are tested on both elsewhere
def test_sighup_reloads_and_a_refused_reload_is_logged(served: Served, policies: Path) -> None:
    url = served.url
    before = audit(url)
    (policies / "refunds.yaml").write_text(INVALID)
    served.send(signal.SIGHUP)
    eventually(lambda: "refused; the old set keeps serving" in served.text(), timeout_s=10)
    assert f"{policies / 'refunds.yaml'}:6: rollout.percent:" in served.text()
    assert_old_set_serves(url, before)

    (policies / "refunds.yaml").unlink()
    edit(policies)
    served.send(signal.SIGHUP)
    eventually(lambda: "policies reloaded by signal:SIGHUP" in served.text(), timeout_s=10)
    assert task_of(url, "orders-agent-step") == "lookup_order"
    assert rollout(url, "pick_tool")["percent"] == 20
    assert served.process.poll() is None  # SIGHUP reloads; it does not end the process


@pytest.mark.integration  # the CLI in a process of its own
def test_cli_says_so_when_no_server_answers(tmp_path: Path) -> None:
    from tests.support.servers import free_port

    result = cli_reload("--url", f"http://127.0.0.1:{free_port()}", "--token", TOKEN)
    assert result.returncode == 1
    assert "no shadowswitch server answers at" in result.stderr


def test_a_model_a_new_policy_names_loads_in_the_background(proxy: Any, tmp_path: Path) -> None:
    """While it loads, the new task type answers generatively (and counts no failure); the rest
    keeps answering locally; once loaded, the new task type goes local too."""
    gate = threading.Event()

    def build(source: ModelSource) -> ScriptedEngine:
        assert gate.wait(30), "the test never opened the gate"
        return ScriptedEngine()

    canary = {"mode": "canary", "percent": 100}
    travel = {**TRAVEL, "rollout": canary}
    engines = EngineSet({ModelSource("embedded"): ScriptedEngine()}, build)
    url = proxy(travel, local_factory=lambda: engines, admin_token=TOKEN)
    eventually(lambda: httpx.get(url + "/readyz").status_code == 200)
    other = {"task_type": "pick_tool_b", "rollout": canary, "engine": {"model": "/models/other"}}
    (tmp_path / "policies0" / "pick_tool_b.yaml").write_text(yaml.safe_dump(other))

    response = reload(url)
    assert response.status_code == 200, response.text
    assert response.json()["loading_models"] == ["/models/other"]
    assert path_of(url, "pick_tool_b") == "generative"  # its model is loading: not an engine error
    assert path_of(url, "pick_tool") == "local"
    assert rollout(url, "pick_tool_b")["breaker"]["consecutive_failures"] == 0
    gate.set()
    eventually(lambda: path_of(url, "pick_tool_b") == "local")
    assert sorted(engines.engines) == [ModelSource("/models/other"), ModelSource("embedded")]


def path_of(url: str, task: str) -> str:
    client = openai.OpenAI(base_url=url + "/v1", api_key="unused", max_retries=0)
    raw = client.chat.completions.with_raw_response.create(
        model="agent",
        messages=[{"role": "user", "content": "Book me a hotel in Rome for 2 nights"}],
        tools=TOOLS,  # type: ignore[arg-type]
        extra_headers={"X-Shadowswitch-Task": task},
    )
    assert raw.headers["x-shadowswitch-task"] == task
    return raw.headers["x-shadowswitch-path"]
