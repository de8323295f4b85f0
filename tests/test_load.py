"""A small load through a real proxy: every kind of request at once, none fails, each recorded once.

The same traffic as `shadowswitch bench load` (bench/load), smaller: 500 requests, 16 in
flight, through the real openai SDK to a real proxy and a real scripted upstream over HTTP, on
the database under test. The local engine is a scripted stand-in (the benchmark runs the real
one); what is checked is the proxy under concurrency, not speed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.load import traffic
from bench.load.records import check_records
from shadowswitch.server.app import create_app
from shadowswitch.server.settings import Settings
from tests.support.policies import write_policies
from tests.support.scripted_engine import ScriptedEngine
from tests.support.servers import running
from tests.support.upstreams import scripted_upstream

REQUESTS, CONCURRENCY = 500, 16


@pytest.fixture(scope="module")
def steady_upstream() -> Iterator[str]:
    with scripted_upstream(keep_alive_s=600) as url:
        yield url


def test_a_mixed_concurrent_load_is_answered_and_recorded_once(
    tmp_path: Path, db_url: str, steady_upstream: str
) -> None:
    policies = write_policies(tmp_path / "policies", steady_upstream, *traffic.policies())
    settings = Settings(db_url=db_url, policies=policies, load_models=False, spool_dir=tmp_path / "spool")
    with running(create_app(settings, local_factory=ScriptedEngine)) as url:
        results = asyncio.run(traffic.run(url, REQUESTS, CONCURRENCY))
    # the server has stopped: its recorder flushed everything
    summary = traffic.summary(results)
    assert summary["errors"] == 0, summary["first_errors"]
    assert set(summary["by_kind"]) == set(traffic.MIX) and all(
        figures["requests"] > 0 for figures in summary["by_kind"].values()
    )
    assert summary["by_kind"]["local"]["paths"] == {"local": summary["by_kind"]["local"]["requests"]}
    records = check_records(db_url, results)
    assert records == {
        "requests": REQUESTS,
        "answered_with_id": REQUESTS,
        "rows": REQUESTS,
        "missing": 0,
        "duplicated": 0,
        "unexpected_rows": 0,
    }
