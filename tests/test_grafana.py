"""The Grafana dashboard in dashboards/ queries only metrics the proxy exports, by their exact names."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

BOARD = Path(__file__).resolve().parents[1] / "dashboards" / "shadowswitch.json"
SUFFIXES = {"counter": ("_total",), "histogram": ("_bucket", "_sum", "_count"), "gauge": ("",)}


def queried_names(board: dict[str, Any]) -> set[str]:
    exprs = [t["expr"] for p in board["panels"] for t in p["targets"]]
    exprs += [v["query"] for v in board["templating"]["list"] if v["type"] == "query"]
    return {name for expr in exprs for name in re.findall(r"\bshadowswitch_[a-z_]+", expr)}


def test_every_queried_metric_is_exported(proxy: Any) -> None:
    url = proxy()
    httpx.post(
        url + "/v1/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    )
    families = {f.name: f.type for f in text_string_to_metric_families(httpx.get(url + "/metrics").text)}
    exported = {family + suffix for family, kind in families.items() for suffix in SUFFIXES.get(kind, ("",))}
    names = queried_names(json.loads(BOARD.read_text()))
    assert len(names) >= 9
    assert names <= exported, sorted(names - exported)
