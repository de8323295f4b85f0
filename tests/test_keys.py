"""Agent keys, their task types and limits, and who may send feedback: through real proxies, the
openai SDK as the agent, the admin API as the operator, and the real database (two replicas on
PostgreSQL for the limits that must hold across them)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from typer.testing import CliRunner

from shadowswitch.analysis.pricing import price_per_token
from shadowswitch.cli import app as cli
from tests.support.clients import TASK, metric
from tests.support.keys import ADMIN, OPERATOR, ask, decision_of, make_key, revoke, status
from tests.support.policies import TRAVEL, travel
from tests.support.proxies import Proxies
from tests.support.scripted_engine import ScriptedEngine
from tests.support.upstreams import FaultyUpstream
from tests.support.wait import eventually

OTHER = {"task_type": "other", "rollout": {"mode": "off"}}


def test_no_key_a_wrong_key_and_a_revoked_key_get_401(proxy: Any) -> None:
    url = proxy(TRAVEL, admin_token=OPERATOR)
    assert ask(url, "unused").headers["x-shadowswitch-path"] == "generative"  # no keys yet: open
    key = make_key(url, "booking-agent")
    raw = ask(url, key)
    assert decision_of(url, raw)["key_name"] == "booking-agent"
    for wrong in ("unused", key[:-1] + ("A" if key[-1] != "A" else "B")):
        with pytest.raises(openai.AuthenticationError) as raised:
            ask(url, wrong)
        assert raised.value.status_code == 401 and raised.value.code == "invalid_api_key"
    bare = httpx.post(f"{url}/v1/chat/completions", json={"model": "m", "messages": []})
    assert bare.status_code == 401 and bare.json()["error"]["type"] == "authentication_error"
    revoke(url, "booking-agent")
    with pytest.raises(openai.AuthenticationError):
        ask(url, key)  # this replica forgets it at once; revoking the last key does not open the door
    listed = httpx.get(f"{url}/v1/shadowswitch/keys", headers=ADMIN).json()
    assert [k["name"] for k in listed] == ["booking-agent"] and listed[0]["revoked_by"] == "api:admin"
    assert key not in str(listed) and listed[0]["prefix"] == key[:10]


def test_a_revoked_key_stops_on_the_other_replica_within_the_cache_ttl(proxy: Any) -> None:
    first = proxy(TRAVEL, admin_token=OPERATOR)
    second = proxy(TRAVEL, admin_token=OPERATOR)  # the same database
    key = make_key(first, "roaming")
    eventually(lambda: status(second, key) == 200, timeout_s=5, what="the new key reaches the other replica")
    revoke(first, "roaming")
    eventually(lambda: status(second, key) == 401, timeout_s=3, what="revocation within the 2 s cache")


def test_agent_auth_required_asks_for_a_key_before_any_exists(proxy: Any) -> None:
    url = proxy(TRAVEL, agent_auth="required")
    with pytest.raises(openai.AuthenticationError):
        ask(url, "unused")


def test_a_key_limited_to_one_task_type_gets_403_on_another(proxy: Any) -> None:
    url = proxy(TRAVEL, OTHER, admin_token=OPERATOR)
    key = make_key(url, "travel-only", task_types=[TASK])
    assert ask(url, key, TASK).headers["x-shadowswitch-task"] == TASK
    with pytest.raises(openai.PermissionDeniedError) as raised:
        ask(url, key, "other")
    assert "other" in raised.value.message


def test_feedback_on_another_keys_decision_gets_403_and_changes_nothing(proxy: Any) -> None:
    url = proxy(travel(), local_factory=ScriptedEngine, admin_token=OPERATOR)
    eventually(lambda: httpx.get(url + "/readyz").status_code == 200)
    mine, theirs = make_key(url, "mine"), make_key(url, "theirs")
    raw = ask(url, mine)
    assert raw.headers["x-shadowswitch-path"] == "local"
    decision_id = raw.headers["x-shadowswitch-decision-id"]
    body = {"decision_id": decision_id, "success": False, "reason": "sabotage"}
    failures = metric(url, "shadowswitch_breaker_consecutive_failures", task_type=TASK)
    for headers in ({"Authorization": f"Bearer {theirs}"}, {}):
        refused = httpx.post(f"{url}/v1/shadowswitch/feedback", json=body, headers=headers)
        assert refused.status_code == (403 if headers else 401), refused.text
    record = decision_of(url, raw)
    assert record["success"] is None and record["feedback_reason"] is None
    assert metric(url, "shadowswitch_breaker_consecutive_failures", task_type=TASK) == failures
    own = httpx.post(f"{url}/v1/shadowswitch/feedback", json={**body, "success": True}, headers=_bearer(mine))
    assert own.status_code == 200 and own.json()["success"] is True
    by_operator = httpx.post(f"{url}/v1/shadowswitch/feedback", json={**body, "reason": "ops"}, headers=ADMIN)
    assert by_operator.status_code == 200 and by_operator.json()["feedback_reason"] == "ops"


def _bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


# -- limits ------------------------------------------------------------------------------------


def early_in_a_minute() -> None:
    """Start with room left in the current UTC minute, so a fixed window does not reset mid-test."""
    eventually(lambda: dt.datetime.now(dt.UTC).second < 50, timeout_s=15, interval_s=0.5)


def assert_limited(url: str, key: str, code: str) -> int:
    """The next request is refused with 429 in OpenAI's format; its Retry-After in seconds."""
    with pytest.raises(openai.RateLimitError) as raised:
        ask(url, key)
    assert raised.value.code == code
    return int(raised.value.response.headers["retry-after"])


def test_the_rate_limit_gives_429_with_retry_after(proxy: Any) -> None:
    url = proxy(TRAVEL, admin_token=OPERATOR)
    key = make_key(url, "chatty", rpm=2)
    early_in_a_minute()
    ask(url, key), ask(url, key)
    assert 1 <= assert_limited(url, key, "rate_limit_exceeded") <= 60
    assert ask(url, make_key(url, "quiet", rpm=2)).status_code == 200  # per key


PRICED = "openai/gpt-4o-mini"  # in LiteLLM's price map: the report (and the budget) can price it


@pytest.fixture
def priced() -> Iterator[dict[str, Any]]:
    """A policy whose upstream is a priced model name, served by the faulty upstream (3 + 1 tokens)."""
    with FaultyUpstream() as server:
        yield {**TRAVEL, "upstream": {"model": PRICED, "api_base": server.base_url, "timeout_s": 5}}


def test_the_daily_budget_gives_429_with_retry_after(proxy: Any, priced: dict[str, Any]) -> None:
    url = proxy(priced, admin_token=OPERATOR)
    key = make_key(url, "spender", budget_usd_per_day=0.000001)  # one call costs 1.05e-6
    ask(url, key)
    waits = eventually(lambda: _limited(url, key), what="the spend is counted")
    now = dt.datetime.now(dt.UTC)
    midnight = (now + dt.timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    assert abs(waits - (midnight - now).total_seconds()) < 60


def _limited(url: str, key: str) -> int | None:
    try:
        ask(url, key)
    except openai.RateLimitError as exc:
        assert exc.code == "budget_exceeded"
        return int(exc.response.headers["retry-after"])
    return None


@pytest.fixture
def two_replicas(tmp_path: Path, upstream: str, pg_url: str) -> Iterator[Proxies]:
    """Two proxies on one PostgreSQL database."""
    proxies = Proxies(tmp_path, upstream, pg_url)
    with proxies.stack:
        yield proxies


def test_limits_hold_across_two_replicas_on_postgresql(two_replicas: Proxies, priced: dict[str, Any]) -> None:
    a = two_replicas(priced, admin_token=OPERATOR)
    b = two_replicas(priced, admin_token=OPERATOR)
    spender = make_key(a, "shared-budget", budget_usd_per_day=0.000001)
    eventually(lambda: status(b, "unused") == 401, what="b asks for keys")  # b read the first key
    early_in_a_minute()
    limited = make_key(a, "shared-rpm", rpm=3)
    eventually(lambda: status(b, limited) == 200, what="b knows the new key")  # 401s until then: 1 counted
    ask(a, limited), ask(b, limited)
    assert assert_limited(a, limited, "rate_limit_exceeded") >= 1  # 2 + 1 + 1 > 3, across both

    ask(a, spender)
    eventually(lambda: _limited(b, spender), what="a's spend refuses b's next request")


def test_the_report_the_dashboard_and_metrics_split_by_key(proxy: Any, priced: dict[str, Any]) -> None:
    url = proxy(priced, admin_token=OPERATOR)
    alpha, beta = make_key(url, "alpha"), make_key(url, "beta")
    for key in (alpha, alpha, beta):
        ask(url, key)
    report = httpx.get(f"{url}/v1/shadowswitch/report", params={"since": "1h"}, headers=ADMIN).json()
    by_key = {k["key"]: k for k in report["keys"]}
    assert (by_key["alpha"]["requests"], by_key["beta"]["requests"]) == (2, 1)
    price_in, price_out = price_per_token(PRICED) or (0.0, 0.0)
    one_call = price_in * 3 + price_out * 1  # the faulty upstream's usage: 3 + 1 tokens
    assert one_call > 0 and by_key["alpha"]["upstream_usd"] == pytest.approx(2 * one_call)
    path = by_key["alpha"]["paths"]
    assert metric(url, "shadowswitch_key_requests_total", key="alpha", task_type=TASK, path="generative") == 2
    assert path == {"generative": 2}
    page = httpx.get(url + "/dashboard", headers=ADMIN).text
    assert "By agent key" in page and "alpha" in page and "beta" in page


def test_the_cli_makes_a_key_shown_once_lists_and_revokes_it(proxy: Any, db_url: str) -> None:
    url = proxy(TRAVEL, admin_token=OPERATOR)
    runner = CliRunner()
    made = runner.invoke(
        cli, ["keys", "create", "cli-agent", "--task-types", TASK, "--rpm", "60", "--db", db_url]
    )
    assert made.exit_code == 0, made.output
    key = made.stdout.strip().splitlines()[-1]
    assert key.startswith("ss-") and ask(url, key).status_code == 200
    listed = json.loads(runner.invoke(cli, ["keys", "list", "--json", "--db", db_url]).stdout)
    assert [(k["name"], k["task_types"], k["rpm"]) for k in listed] == [("cli-agent", [TASK], 60)]
    assert key not in json.dumps(listed) and listed[0]["created_by"].startswith("cli:")
    taken = runner.invoke(cli, ["keys", "create", "cli-agent", "--db", db_url])
    assert taken.exit_code == 1 and "exists" in taken.output
    assert runner.invoke(cli, ["keys", "revoke", "cli-agent", "--db", db_url]).exit_code == 0
    eventually(lambda: status(url, key) == 401, timeout_s=3, what="the CLI's revocation within the cache TTL")
