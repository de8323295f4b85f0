"""What the dashboard's charts draw, computed from decision and audit rows. Pure."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from shadowswitch.analysis.stats import rate
from shadowswitch.answers.messages import call_of
from shadowswitch.store.tables import AuditEvent, Decision

BUCKETS = 24  # points over the window on the time charts
LATENCY_BINS = [2**k for k in range(0, 17)]  # 1 ms … 65 s, doubling


def time_series(rows: Sequence[Decision], since: datetime, until: datetime) -> dict[str, Any]:
    """Agreement and success per time bucket, each point with its 95% interval (None: no data)."""
    width = max((until - since).total_seconds() / BUCKETS, 1.0)
    buckets: list[list[Decision]] = [[] for _ in range(BUCKETS)]
    for row in rows:
        index = int((_aware(row.created_at) - since).total_seconds() // width)
        buckets[min(max(index, 0), BUCKETS - 1)].append(row)
    series: dict[str, Any] = {"t": [since.timestamp() + (i + 0.5) * width for i in range(BUCKETS)]}
    series["agreement"] = _band([[r.agreement for r in b if r.agreement is not None] for b in buckets])
    for path in ("local", "generative"):
        judged = [[r.success for r in b if r.path == path and r.success is not None] for b in buckets]
        series[f"success_{path}"] = _band(judged)
    return series


def _band(groups: Sequence[Sequence[bool | None]]) -> dict[str, list[float | None]]:
    figures = [rate(sum(1 for v in g if v), len(g)) for g in groups]
    return {
        "rate": [f.value for f in figures],
        "low": [f.low for f in figures],
        "high": [f.high for f in figures],
    }


def latency_histogram(rows: Sequence[Decision]) -> dict[str, Any]:
    """Requests per latency bin (doubling widths) for each path that served."""
    counts = {path: [0] * len(LATENCY_BINS) for path in ("local", "generative", "fallback")}
    for row in rows:
        if row.status_code < 400 and row.path in counts:
            index = min(len(LATENCY_BINS) - 1, max(0, math.ceil(math.log2(max(row.latency_ms, 1.0)))))
            counts[row.path][index] += 1
    return {"bins_ms": LATENCY_BINS, **{p: c for p, c in counts.items() if any(c)}}


def rollout_history(events: Sequence[AuditEvent], since: datetime) -> dict[str, Any]:
    """The local percentage over the window (a step line from `since`), the ramp's moves on it, and
    the changes to mark."""
    ordered = sorted(events, key=lambda e: _aware(e.at))
    t: list[float] = []
    percent: list[float] = []
    ramp: list[float | None] = []  # a point where the ramp acted, at the percentage it left
    current = 0.0
    for e in ordered:
        if e.new_mode is not None:
            current = (e.new_percent or 0.0) if e.new_mode == "canary" else 0.0
        elif not e.kind.startswith("ramp_"):
            continue
        t.append(_aware(e.at).timestamp())
        percent.append(current)
        ramp.append(current if e.kind.startswith("ramp_") else None)
    start = since.timestamp()
    if before := [i for i, at in enumerate(t) if at < start]:  # the window opens at the percentage then
        last = before[-1]
        t, percent, ramp = (
            [start, *t[last + 1 :]],
            [percent[last], *percent[last + 1 :]],
            [None, *ramp[last + 1 :]],
        )
    marks = [
        {"t": _aware(e.at).timestamp(), "kind": e.kind, "actor": e.actor, "reason": e.reason or ""}
        for e in ordered
        if _aware(e.at) >= since
    ]
    return {"t": t, "percent": percent, "ramp": ramp, "marks": marks}


def disagreements(rows: Sequence[Decision], limit: int = 10) -> list[dict[str, Any]]:
    """The latest pairs whose paths chose differently, both answers side by side."""
    found = [r for r in rows if r.agreement is False and isinstance(r.shadow, dict)]
    found.sort(key=lambda r: _aware(r.created_at), reverse=True)
    return [_side_by_side(r) for r in found[:limit]]


def _side_by_side(row: Decision) -> dict[str, Any]:
    shadow = row.shadow
    served = {"name": _name(row.chosen), "arguments": row.arguments}
    if shadow.get("path") == "local":
        local = {
            "name": shadow.get("name") if shadow.get("kind") != "no_tool" else None,
            "arguments": shadow.get("arguments"),
        }
        generative = served
    else:
        call = call_of(shadow.get("message") or {})
        local, generative = served, {"name": call.name, "arguments": call.arguments}
    return {
        "id": row.id,
        "at": _aware(row.created_at).isoformat(timespec="seconds"),
        "local": _shown(local),
        "generative": _shown(generative),
    }


def _name(chosen: str | None) -> str | None:
    return None if chosen in (None, "__no_tool__") else chosen


def _shown(call: dict[str, Any]) -> str:
    if call["name"] is None:
        return "(answers in text, no tool)"
    return f"{call['name']}({json.dumps(call['arguments'] or {}, ensure_ascii=False, sort_keys=True)})"


def _aware(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes; every one stored is UTC."""
    from datetime import UTC

    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
