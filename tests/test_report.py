"""The comparison report: the API and `shadowswitch report --json` agree and count what happened."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import httpx

from tests.test_proxy import client


def test_report_counts_requests_per_task_and_path(proxy: Any, db_url: str) -> None:
    url = proxy()
    for i in range(3):
        client(url).chat.completions.create(model="m", messages=[{"role": "user", "content": f"hi {i}"}])
    response = httpx.get(url + "/v1/shadowswitch/report", params={"since": "1h"})
    assert response.status_code == 200
    tasks = {t["task_type"]: t for t in response.json()["task_types"]}
    generative = tasks["unclassified"]["paths"]["generative"]
    assert generative["requests"] == 3 and generative["valid_rate"] == 1.0
    assert generative["latency_ms"]["p50"] > 0

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
