"""The comparison of both paths per task type: speed, validity, success, agreement. Pure."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from shadowswitch.store.tables import Decision

PATHS = ("local", "generative", "fallback")


def parse_since(text: str) -> timedelta:
    """`24h`, `30m`, `7d`, `90s`, `2w` → a timedelta; ValueError on anything else."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*", text or "")
    if not match:
        raise ValueError(f"cannot read the duration {text!r}; use e.g. 24h, 30m, 7d")
    unit = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}[match.group(2)]
    return timedelta(**{unit: float(match.group(1))})


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1))))
    return round(ordered[rank], 3)


def _rate(hits: int, total: int) -> float | None:
    return round(hits / total, 4) if total else None


def path_stats(rows: list[Decision]) -> dict[str, Any]:
    latencies = [r.latency_ms for r in rows if r.status_code < 400]
    judged = [r for r in rows if r.success is not None]
    compared = [r for r in rows if r.agreement is not None]
    return {
        "requests": len(rows),
        "errors": sum(1 for r in rows if r.status_code >= 400),
        "latency_ms": {"p50": percentile(latencies, 50), "p95": percentile(latencies, 95)},
        "valid_rate": _rate(sum(1 for r in rows if r.valid), len(rows)),
        "success_rate": _rate(sum(1 for r in judged if r.success), len(judged)),
        "judged": len(judged),
        "agreement_rate": _rate(sum(1 for r in compared if r.agreement), len(compared)),
        "compared": len(compared),
        "abstain_rate": _rate(sum(1 for r in rows if r.abstain_reason), len(rows)),
        "completion_tokens": sum(r.completion_tokens or 0 for r in rows),
    }


def shadow_stats(rows: list[Decision]) -> dict[str, Any]:
    """The background runs of the other path (shadow mode, and canary comparisons)."""
    runs: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        shadow = row.shadow if isinstance(row.shadow, dict) else None
        if shadow and isinstance(shadow.get("latency_ms"), int | float):
            runs[str(shadow.get("path"))].append(float(shadow["latency_ms"]))
    return {
        path: {"runs": len(v), "latency_ms": {"p50": percentile(v, 50), "p95": percentile(v, 95)}}
        for path, v in sorted(runs.items())
    }


def build_report(rows: Iterable[Decision], since: datetime, until: datetime) -> dict[str, Any]:
    """Per task type, per path; plus the local/generative speed-up where both served."""
    grouped: dict[str, dict[str, list[Decision]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        grouped[row.task_type][row.path].append(row)
    tasks = []
    for task_type in sorted(grouped):
        paths = {p: path_stats(grouped[task_type][p]) for p in PATHS if grouped[task_type][p]}
        every = [r for p in PATHS for r in grouped[task_type][p]]
        tasks.append(
            {
                "task_type": task_type,
                "paths": paths,
                "shadow_runs": shadow_stats(every),
                "speedup": _speedup(paths),
            }
        )
    return {"since": since.isoformat(), "until": until.isoformat(), "task_types": tasks}


def _speedup(paths: dict[str, Any]) -> float | None:
    local = (paths.get("local") or {}).get("latency_ms", {}).get("p50")
    generative = (paths.get("generative") or {}).get("latency_ms", {}).get("p50")
    return round(generative / local, 2) if local and generative else None
