"""The legacy agent against real HTTP: the demo's simulated upstream, and the proxy in front of it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from openai import OpenAI

from examples.demo.servers import serving, upstream_settings, write_policies
from examples.demo.stages import run_tasks, summarise
from examples.demo.upstream import Simulated, create_upstream
from examples.travel_agent.agent import TravelAgent
from examples.travel_agent.tasks import TASKS
from shadowswitch.server.app import create_app
from shadowswitch.server.settings import Settings

FAST = (0.0, 0.0)


@pytest.fixture(scope="module")
def simulated() -> Iterator[str]:
    with serving(create_upstream(Simulated(FAST, error_rate=0.0))) as url:
        yield url


def test_a_good_model_completes_every_task(simulated: str) -> None:
    results = run_tasks(simulated, TASKS, tag="good", concurrency=4)
    summary = summarise(results)
    assert [r.task_id for r in results if not r.success] == []
    assert summary.parse_failures == 0
    calls = sum(len(turn.calls) for task in TASKS for turn in task.turns)
    assert summary.steps == calls + sum(len(task.turns) for task in TASKS)  # each call, then a reply


@pytest.mark.integration  # serves its upstream
def test_malformed_calls_are_parse_failures_the_model_recovers_from() -> None:
    with serving(create_upstream(Simulated(FAST, error_rate=0.4, seed=3))) as url:
        results = run_tasks(url, TASKS[:12], tag="sloppy", concurrency=4)
        stats = httpx.get(f"{url}/stats").json()
    failures = sum(r.parse_failures for r in results)
    assert failures == stats["malformed"] > 0
    assert all(r.success for r in results if r.error is None)  # each retry fixed it, or the budget ran out


def test_the_simulated_model_follows_the_tool_descriptions_and_says_what_it_is(simulated: str) -> None:
    client = OpenAI(base_url=f"{simulated}/v1", api_key="x")
    assert "simulated" in client.models.list().data[0].id
    v2 = TravelAgent(client, tools_version="v2")
    result = v2.run(next(t for t in TASKS if t.id == "flight-01"))
    assert result.success  # it wrote airport codes, which version 2's search requires


def test_the_agent_works_unchanged_through_the_proxy(simulated: str, tmp_path: Path) -> None:
    policies = write_policies(
        tmp_path / "policies", upstream_settings("simulated-large-model", f"{simulated}/v1")
    )
    settings = Settings(db_url=f"sqlite:///{tmp_path / 'ss.db'}", policies=policies, load_models=False)
    with serving(create_app(settings)) as proxy:
        results = run_tasks(proxy, TASKS[:5], tag="proxied", concurrency=2)
        decisions = httpx.get(f"{proxy}/v1/shadowswitch/report").json()["task_types"]
    assert all(r.success for r in results)
    assert summarise(results).paths == {"generative": sum(len(r.steps) for r in results)}
    assert decisions[0]["task_type"] == "travel"


def test_the_agent_runs_on_its_own_from_the_command_line(simulated: str) -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "examples.travel_agent",
            "--base-url",
            f"{simulated}/v1",
            "--tasks",
            "cancel-01,trip-02",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "2/2 tasks succeeded" in out.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "examples.travel_agent", "--tasks", "nope"], capture_output=True, text=True
    )
    assert bad.returncode == 2 and "unknown tasks: nope" in bad.stderr
