"""The comparison report: the API and `shadowswitch report --json` agree and count what happened."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import httpx
import pytest

from tests.support.clients import client


def test_report_counts_requests_per_task_and_path(proxy: Any, db_url: str) -> None:
    url = proxy()
    for i in range(3):
        client(url).chat.completions.create(model="m", messages=[{"role": "user", "content": f"hi {i}"}])
    response = httpx.get(url + "/v1/shadowswitch/report", params={"since": "1h"})
    assert response.status_code == 200
    tasks = {t["task_type"]: t for t in response.json()["task_types"]}
    generative = tasks["unclassified"]["paths"]["generative"]
    assert generative["requests"] == 3 and generative["valid"]["rate"] == 1.0
    assert generative["valid"]["ci95"][0] < 1.0 == generative["valid"]["ci95"][1]
    assert generative["latency_ms"]["p50"] > 0
    assert tasks["unclassified"]["verdict"]["kind"] == "not_enough_data"

    cli = subprocess.run(
        [sys.executable, "-m", "shadowswitch.cli", "report", "--json", "--since", "1h", "--db", db_url],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout)["task_types"] == response.json()["task_types"]


def test_report_rejects_a_bad_window(proxy: Any) -> None:
    url = proxy()
    response = httpx.get(url + "/v1/shadowswitch/report", params={"since": "yesterday"})
    assert response.status_code == 400
    assert "24h" in response.json()["error"]["message"]


@pytest.mark.slow
def test_a_shadow_run_makes_pairs_the_report_counts(proxy: Any, local_engine: Any, db_url: str) -> None:
    """The real engine in shadow beside the scripted upstream: the upstream picks the same tools but
    writes placeholder arguments, so the paths agree on the tool and not on the call."""
    from tests.support.local_path import ask, policy, wait_for

    url = proxy({**policy(), "rollout": {"mode": "shadow"}}, local_factory=lambda: local_engine)
    questions = ["What's the weather like in Lisbon today?", "Book a hotel room in Paris for 2 nights"]
    for text in questions * 2:
        raw = ask(url, text)
        wait_for(url, raw.headers["x-shadowswitch-decision-id"], "agreement")
    response = httpx.get(url + "/v1/shadowswitch/report", params={"since": "1h", "task": "pick_tool"})
    (entry,) = response.json()["task_types"]
    assert entry["mode"] == "shadow" and entry["paths"]["generative"]["requests"] == 4
    assert entry["comparison"]["pairs"] == 4
    assert entry["comparison"]["same_tool"]["hits"] == 4 and entry["comparison"]["same_call"]["hits"] == 0
    assert entry["verdict"]["kind"] == "worse" and "0.0% of 4 pairs" in entry["verdict"]["text"]
    cli = subprocess.run(
        [sys.executable, "-m", "shadowswitch.cli", "report", "--since", "1h", "--db", db_url],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert cli.returncode == 0, cli.stderr
    assert "pairs 4: same tool 100%" in cli.stdout and "same call 0%" in cli.stdout
    metrics = httpx.get(url + "/metrics").text
    assert 'shadowswitch_pairs_total{agree="true",level="tool",task_type="pick_tool"} 4.0' in metrics
    assert 'shadowswitch_pairs_total{agree="false",level="call",task_type="pick_tool"} 4.0' in metrics
