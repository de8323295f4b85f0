"""Property-based fuzzing, the short version (`shadowswitch bench fuzz` runs the long one).

The API from its own OpenAPI schema (schemathesis, valid and invalid inputs), policy files
(hypothesis), and tool schemas through a proxy serving them with the real local engine.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.fuzz.run import fuzz_api, fuzz_policies, fuzz_tool_schemas
from shadowswitch.server.app import create_app
from shadowswitch.server.settings import Settings
from tests.support.policies import write_policies
from tests.support.servers import running
from tests.support.upstreams import StubUpstream

TOKEN = "fuzz-admin-token"
TOOLS_TASK = {
    "task_type": "fuzz_tools",
    "rollout": {"mode": "canary", "percent": 100},
    "engine": {"min_confidence": 0.0, "min_margin": 0.0},
    "breaker": {"consecutive_failures": 1000},
}


@pytest.fixture
def stub_proxy(tmp_path: Path, db_url: str) -> Iterator[str]:
    """A proxy in front of an upstream that answers anything: any 5xx is the proxy's own."""
    with StubUpstream() as stub:
        policies = write_policies(tmp_path / "policies", stub.base_url, {"task_type": "other"})
        settings = Settings(db_url=db_url, policies=policies, load_models=False, admin_token=TOKEN)
        with running(create_app(settings)) as url:
            yield url


def test_the_chat_schema_says_what_the_endpoint_reads(stub_proxy: str) -> None:
    import httpx

    spec = httpx.get(stub_proxy + "/openapi.json").json()
    body = spec["paths"]["/v1/chat/completions"]["post"]["requestBody"]["content"]["application/json"]
    assert "messages" in body["schema"]["required"]
    assert body["schema"]["properties"]["tools"]["anyOf"][0]["maxItems"] == 128


@pytest.mark.one_backend  # request validation: the SQLite pass is enough
def test_api_fuzz_finds_no_5xx(stub_proxy: str) -> None:
    report = fuzz_api(stub_proxy, examples=30, headers={"Authorization": f"Bearer {TOKEN}"})
    assert report.tried >= 60  # 30 chat bodies of each kind, a few per other operation
    assert report.failures == [], report.failures
    assert any(int(s) >= 400 for s in report.statuses) and "200" in report.statuses


def test_policy_fuzz_gives_file_line_problems_and_never_crashes() -> None:
    report = fuzz_policies(examples=150)
    assert report.tried == 150
    assert report.failures == [], report.failures
    assert report.statuses.get("1", 0) > 0  # most mangled policies are refused, with lines


@pytest.mark.slow
def test_tool_schema_fuzz_the_local_engine_answers_or_abstains(
    tmp_path: Path, db_url: str, upstream: str, local_engine: Any
) -> None:
    policies = write_policies(tmp_path / "policies", upstream, TOOLS_TASK)
    settings = Settings(db_url=db_url, policies=policies, load_models=False)
    with running(create_app(settings, local_factory=lambda: local_engine), ready_path="/readyz") as url:
        report = fuzz_tool_schemas(url, "fuzz_tools", examples=15)
    assert report.tried == 15
    assert report.failures == [], report.failures
