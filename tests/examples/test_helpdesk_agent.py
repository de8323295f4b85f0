"""The help-desk agent end to end over real HTTP with the `openai` SDK: its simulated upstream,
and the proxy in front of it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml
from openai import OpenAI

from examples.demo.servers import serving
from examples.demo.upstream import create_upstream
from examples.helpdesk import TASKS, HelpdeskAgent
from examples.helpdesk.simulated import simulated
from shadowswitch.server.app import create_app
from shadowswitch.server.settings import Settings

pytestmark = pytest.mark.integration  # real HTTP servers in this process

# one task of each family, so every tool path the task set takes runs once
ONE_EACH = list({task.kind: task for task in TASKS}.values())


@pytest.fixture(scope="module")
def upstream() -> Iterator[str]:
    with serving(create_upstream(simulated())) as url:
        yield url


def _agent(base_url: str) -> HelpdeskAgent:
    return HelpdeskAgent(OpenAI(base_url=f"{base_url}/v1", api_key="x", max_retries=0))


def test_a_good_model_completes_a_task_of_every_family(upstream: str) -> None:
    agent = _agent(upstream)
    results = [agent.run(task) for task in ONE_EACH]
    assert [r.task_id for r in results if not r.success] == []
    expected = sum(len(turn.calls) + 1 for task in ONE_EACH for turn in task.turns)  # each call, then text
    assert sum(len(r.steps) for r in results) == expected


def test_a_refused_call_is_read_and_answered_in_text(upstream: str) -> None:
    task = next(t for t in TASKS if t.kind == "password_disabled")  # the account is disabled
    result = _agent(upstream).run(task)
    assert result.success and [s.tool_calls for s in result.steps] == [1, 1, 0]  # find, refused, say why
    full = next(t for t in TASKS if t.kind == "licence" and len(t.turns[0].calls) == 2)  # no free seat
    assert [s.tool_calls for s in _agent(upstream).run(full).steps] == [1, 1, 0]  # find, check, say so


def test_malformed_calls_are_parse_failures_the_model_recovers_from() -> None:
    with serving(create_upstream(simulated(error_rate=0.4, seed=3))) as url:
        results = [_agent(url).run(task) for task in ONE_EACH[:8]]
        stats = httpx.get(f"{url}/stats").json()
    failures = sum(s.parse_failures for r in results for s in r.steps)
    assert failures == stats["malformed"] > 0
    assert all(r.success for r in results if r.error is None)


def test_the_agent_works_unchanged_through_the_proxy(upstream: str, tmp_path: Path) -> None:
    policies = tmp_path / "policies"
    policies.mkdir()
    target = {"model": "openai/simulated-large-model", "api_base": f"{upstream}/v1", "timeout_s": 60}
    policy = {
        "task_type": "helpdesk",
        "description": "The help desk's next step: which back-office tool to call, with what.",
        "match": {"model": "helpdesk-agent"},
        "upstream": target,
        "rollout": {"mode": "off", "percent": 0, "sticky_key": "user"},
        "feedback": {"tool_error_regex": r"^error:"},
    }
    (policies / "_defaults.yaml").write_text(yaml.safe_dump({"upstream": target}))
    (policies / "helpdesk.yaml").write_text(yaml.safe_dump(policy))
    settings = Settings(db_url=f"sqlite:///{tmp_path / 'ss.db'}", policies=policies, load_models=False)
    tasks = [t for t in ONE_EACH if t.kind in ("close", "licence", "leaver", "vpn_grant")]
    with serving(create_app(settings)) as proxy:
        results = [_agent(proxy).run(task) for task in tasks]
        report = httpx.get(f"{proxy}/v1/shadowswitch/report").json()["task_types"]
    assert all(r.success for r in results)
    assert {s.path for r in results for s in r.steps} == {"generative"}
    assert [t["task_type"] for t in report] == ["helpdesk"]


def test_the_agent_runs_on_its_own_from_the_command_line(upstream: str) -> None:
    command = [sys.executable, "-m", "examples.helpdesk", "--base-url", f"{upstream}/v1"]
    out = subprocess.run([*command, "--tasks", "unlock-1a,kb"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "9/9 tasks succeeded" in out.stdout  # one task, and the kb family's eight
    bad = subprocess.run([*command, "--tasks", "nope"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "unknown tasks: nope" in bad.stderr
