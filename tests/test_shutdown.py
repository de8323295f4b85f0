"""SIGTERM to a real `shadowswitch serve`: requests in flight finish, records are flushed, exit 0.

A slow upstream over HTTP keeps requests in flight when the signal arrives; the real openai SDK
is the client; after a restart on the same database every request has exactly one decision row.
"""

from __future__ import annotations

import json
import signal
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
import yaml
from sqlalchemy import create_engine, text

from tests.support.policies import TOOLS, TRAVEL, write_policies
from tests.support.processes import Served, serve
from tests.support.wait import eventually

N = 8


def slow_policies(directory: Path, upstream: str, delay_s: float) -> Path:
    """Every request goes to the scripted upstream, which waits `delay_s` before answering."""
    write_policies(directory, upstream)
    defaults = {"upstream": {"model": f"openai/slow-{delay_s:g}", "api_base": upstream, "timeout_s": 60}}
    (directory / "_defaults.yaml").write_text(yaml.safe_dump(defaults))
    return directory


def received(upstream: str) -> int:
    return len(httpx.get(upstream.removesuffix("/v1") + "/requests").json())


def ask(url: str, i: int) -> tuple[int, str]:
    """One chat completion through the real SDK (every third one streamed): status, decision id."""
    client = openai.OpenAI(base_url=url + "/v1", api_key="unused", max_retries=0, timeout=60)
    messages = [{"role": "user", "content": f"request {i}"}]
    if i % 3:
        raw = client.chat.completions.with_raw_response.create(model="agent", messages=messages)
        assert raw.parse().choices[0].message.content == f"echo: request {i}"
    else:
        raw = client.chat.completions.with_raw_response.create(model="agent", messages=messages, stream=True)
        text_ = "".join(c.choices[0].delta.content or "" for c in raw.parse() if c.choices)
        assert text_ == f"echo: request {i}"
    return raw.http_response.status_code, raw.headers["x-shadowswitch-decision-id"]


def sigterm_in_flight(served: Served, upstream: str, work: Callable[[int], Any]) -> list[Any]:
    """Run N requests at once; send SIGTERM once the upstream holds all of them."""
    before = received(upstream)
    with ThreadPoolExecutor(N) as pool:
        futures = [pool.submit(work, i) for i in range(N)]
        eventually(lambda: received(upstream) >= before + N, timeout_s=60)
        served.send(signal.SIGTERM)
        return [f.exception() or f.result() for f in futures]


def query(db_url: str, sql: str) -> list[tuple[Any, ...]]:
    """Read the database directly, once the server is gone."""
    engine = create_engine(db_url)
    try:
        with engine.connect() as connection:
            return [tuple(row) for row in connection.execute(text(sql))]
    finally:
        engine.dispose()


def rows(db_url: str) -> list[tuple[Any, ...]]:
    return query(db_url, "SELECT id, status_code, error FROM decision")


def test_sigterm_finishes_requests_in_flight_exits_0_and_loses_no_record(
    tmp_path: Path, upstream: str, db_url: str
) -> None:
    policies = slow_policies(tmp_path / "policies", upstream, delay_s=3)
    with serve(policies, db_url, tmp_path / "serve.log", "--no-models", "--shutdown-timeout", "30") as served:
        results = sigterm_in_flight(served, upstream, lambda i: ask(served.url, i))
        assert served.wait(60) == 0, served.text()
    assert all(isinstance(r, tuple) and r[0] == 200 for r in results), results
    assert "Waiting for connections to close" in served.text()  # the signal came while they ran
    ids = sorted(r[1] for r in results)

    with serve(policies, db_url, tmp_path / "again.log", "--no-models") as again:  # a restart
        for decision_id in ids:
            found = httpx.get(f"{again.url}/v1/shadowswitch/decisions/{decision_id}")
            assert found.status_code == 200 and found.json()["status_code"] == 200
    assert sorted(r[0] for r in rows(db_url)) == ids  # exactly one row per request, nothing else


@pytest.mark.one_backend  # the cut requests' records take the spool's path, tested on both above
def test_past_the_shutdown_timeout_requests_are_cut_but_still_recorded(
    tmp_path: Path, upstream: str, db_url: str
) -> None:
    policies = slow_policies(tmp_path / "policies", upstream, delay_s=10)
    with serve(policies, db_url, tmp_path / "serve.log", "--no-models", "--shutdown-timeout", "1") as served:
        results = sigterm_in_flight(served, upstream, lambda i: ask(served.url, i))
        assert served.wait(60) == 0, served.text()
    assert "timeout graceful shutdown exceeded" in served.text()  # it did not wait for the upstream
    assert all(isinstance(r, openai.APIStatusError) and r.status_code == 503 for r in results), results
    recorded = rows(db_url)
    assert len(recorded) == N and len({r[0] for r in recorded}) == N
    assert all(r[1] == 503 and "server is shutting down" in (r[2] or "") for r in recorded)


@pytest.mark.slow
def test_sigterm_waits_for_background_comparisons(tmp_path: Path, upstream: str, db_url: str) -> None:
    """Local answers leave at once; their generative comparisons (slow upstream) finish before exit."""
    travel = {
        **TRAVEL,
        "upstream": {"model": "openai/slow-3", "api_base": upstream, "timeout_s": 60},
        "rollout": {"mode": "canary", "percent": 100, "compare_percent": 100},
        "engine": {"min_confidence": 0.0, "min_margin": 0.0},
    }
    policies = write_policies(tmp_path / "policies", upstream, travel)
    with serve(policies, db_url, tmp_path / "serve.log", "--shutdown-timeout", "30") as served:
        before = received(upstream)
        with ThreadPoolExecutor(4) as pool:
            replies = list(pool.map(lambda i: book(served.url, i), range(4)))
        assert [path for path, _ in replies] == ["local"] * 4, served.text()
        eventually(lambda: received(upstream) >= before + 4, timeout_s=30)  # comparisons under way
        served.send(signal.SIGTERM)
        assert served.wait(60) == 0, served.text()
    shadows = dict(query(db_url, "SELECT id, shadow FROM decision"))
    assert sorted(shadows) == sorted(decision_id for _, decision_id in replies)
    for shadow in shadows.values():
        shadow = json.loads(shadow) if isinstance(shadow, str) else shadow
        assert shadow["path"] == "generative" and shadow["message"]["tool_calls"], shadow


def book(url: str, i: int) -> tuple[str, str]:
    client = openai.OpenAI(base_url=url + "/v1", api_key="unused", max_retries=0, timeout=60)
    raw = client.chat.completions.with_raw_response.create(
        model="travel-agent-step",
        messages=[{"role": "user", "content": "Book me a hotel in Rome for 3 nights"}],
        tools=TOOLS,  # type: ignore[arg-type]
        extra_headers={"X-Shadowswitch-Session": f"s{i}"},
    )
    raw.parse()
    return raw.headers["x-shadowswitch-path"], raw.headers["x-shadowswitch-decision-id"]
