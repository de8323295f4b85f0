"""The comparison of both paths per task type: speed, validity, success, agreement, money, verdict. Pure."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from shadowswitch.analysis.by_key import by_key
from shadowswitch.analysis.pricing import call_cost
from shadowswitch.analysis.stats import Rate, difference, percentiles, rate
from shadowswitch.analysis.verdict import Counts, Evidence, verdict_for
from shadowswitch.answers.messages import call_of
from shadowswitch.states import DecisionPath
from shadowswitch.store.tables import Decision, Rollout

PATHS: tuple[str, ...] = tuple(DecisionPath)
NO_TOOL = "__no_tool__"


def reason_kind(reason: str) -> str:
    """`missing_value:city` → `missing_value`, `low_confidence 0.41 < 0.5` → `low_confidence`."""
    return re.split(r"[\s:]", reason, maxsplit=1)[0]


def path_stats(rows: list[Decision]) -> dict[str, Any]:
    """One path's figures; every rate with its 95% interval."""
    latencies = [r.latency_ms for r in rows if r.status_code < 400]
    judged = [r for r in rows if r.success is not None]
    abstained = [r.abstain_reason for r in rows if r.abstain_reason]
    return {
        "requests": len(rows),
        "errors": sum(1 for r in rows if r.status_code >= 400),
        "latency_ms": percentiles(latencies),
        "valid": rate(sum(1 for r in rows if r.valid), len(rows)).json(),
        "success": rate(sum(1 for r in judged if r.success), len(judged)).json(),
        "abstain": rate(len(abstained), len(rows)).json(),
        "abstain_reasons": dict(Counter(reason_kind(r) for r in abstained).most_common()),
        "tokens": {
            "prompt": sum(r.prompt_tokens or 0 for r in rows),
            "completion": sum(r.completion_tokens or 0 for r in rows),
        },
    }


def pair_stats(rows: list[Decision]) -> dict[str, Any]:
    """Requests both paths answered (shadow runs, canary comparisons): do they choose alike?"""
    pairs = [r for r in rows if r.agreement is not None]
    same_tool = sum(1 for r in pairs if tool_agreement(r))
    return {
        "pairs": len(pairs),
        "same_tool": rate(same_tool, len(pairs)).json(),
        "same_call": rate(sum(1 for r in pairs if r.agreement), len(pairs)).json(),
    }


def tool_agreement(row: Decision) -> bool:
    """Did both paths pick the same tool or action (arguments aside)? From the stored pair."""
    if row.agreement:
        return True
    shadow = row.shadow if isinstance(row.shadow, dict) else {}
    if shadow.get("path") == "local":  # shadow mode: the record is generative's, the shadow local's
        local = shadow.get("name") if shadow.get("kind") != "no_tool" else None
        return local == row.chosen
    other = call_of(shadow.get("message") or {}).name  # a canary comparison: the shadow is generative's
    return other == (None if row.chosen == NO_TOOL else row.chosen)


def saving(rows: list[Decision], days: float) -> dict[str, Any]:
    """Upstream money the local answers saved, at the mean price of this task type's upstream calls
    (LiteLLM's price map); "unknown" without a price or without a priced upstream call to go by."""
    upstream = [r for r in rows if r.path != "local"]
    calls = (call_cost(r.upstream_model, r.prompt_tokens, r.completion_tokens) for r in upstream)
    costs = [c for c in calls if c is not None]
    local = sum(1 for r in rows if r.path == "local")
    if not costs:
        return {"usd": None, "usd_per_day": None, "note": "unknown: no priced upstream call in the window"}
    usd = local * sum(costs) / len(costs)
    return {"usd": round(usd, 6), "usd_per_day": round(usd / days, 4) if days else None, "note": None}


def task_report(
    task_type: str,
    rows: list[Decision],
    days: float,
    rollout: tuple[str, float],
    ramp: dict[str, Any] | None = None,
) -> dict[str, Any]:
    by_path: dict[str, list[Decision]] = defaultdict(list)
    for row in rows:
        by_path[row.path].append(row)
    paths = {p: path_stats(by_path[p]) for p in PATHS if by_path[p]}
    pairs = pair_stats(rows)
    local, generative = _success(by_path["local"]), _success(by_path["generative"])
    evidence = Evidence(
        Counts(pairs["same_call"]["hits"], pairs["pairs"]),
        Counts(local.hits, local.total),
        Counts(generative.hits, generative.total),
        *rollout,
    )
    return {
        "task_type": task_type,
        "mode": rollout[0],
        "percent": rollout[1],
        "paths": paths,
        "comparison": pairs,
        "success_difference": difference(local, generative),
        "speedup": _speedup(paths),
        "saving": saving(rows, days),
        "shadow_runs": shadow_stats(rows),
        "verdict": verdict_for(evidence).json(),
        "ramp": ramp,  # the ramp's step and what it waits for (its own window: since the step began)
    }


def _success(rows: list[Decision]) -> Rate:
    judged = [r for r in rows if r.success is not None]
    return rate(sum(1 for r in judged if r.success), len(judged))


def shadow_stats(rows: list[Decision]) -> dict[str, Any]:
    """The background runs of the other path (shadow mode, canary comparisons): how many ran, how
    fast, how many failed, and how many were skipped because too many were in flight."""
    runs: dict[str, list[float]] = defaultdict(list)
    failed: Counter[str] = Counter()
    skipped: Counter[str] = Counter()
    for row in rows:
        shadow = row.shadow if isinstance(row.shadow, dict) else {}
        path = str(shadow.get("path"))
        if shadow.get("skipped"):
            skipped[path] += 1
        elif shadow.get("error"):
            failed[path] += 1
        elif isinstance(shadow.get("latency_ms"), int | float):
            runs[path].append(float(shadow["latency_ms"]))
    paths = sorted(set(runs) | set(failed) | set(skipped))
    return {
        p: {
            "runs": len(runs[p]),
            "failed": failed[p],
            "skipped": skipped[p],
            "latency_ms": percentiles(runs[p]),
        }
        for p in paths
    }


def build_report(
    rows: Iterable[Decision],
    since: datetime,
    until: datetime,
    rollouts: Mapping[str, tuple[str, float]] | None = None,
    ramps: Mapping[str, dict[str, Any] | None] | None = None,
) -> dict[str, Any]:
    """Per task type: each path's figures, the paired comparison, the verdict and the ramp."""
    rows = list(rows)
    grouped: dict[str, list[Decision]] = defaultdict(list)
    for row in rows:
        grouped[row.task_type].append(row)
    days = (until - since).total_seconds() / 86400
    known = rollouts or {}
    ramp = ramps or {}
    tasks = [
        task_report(t, grouped[t], days, known.get(t, ("off", 0.0)), ramp.get(t)) for t in sorted(grouped)
    ]
    return {"since": since.isoformat(), "until": until.isoformat(), "task_types": tasks, "keys": by_key(rows)}


def rollout_modes(rows: Iterable[Rollout]) -> dict[str, tuple[str, float]]:
    """task type → (mode, percent) of the live rollouts, for the verdict's advice."""
    return {r.task_type: (r.mode, r.percent) for r in rows}


def _speedup(paths: dict[str, Any]) -> float | None:
    local = (paths.get("local") or {}).get("latency_ms", {}).get("p50")
    generative = (paths.get("generative") or {}).get("latency_ms", {}).get("p50")
    return round(generative / local, 2) if local and generative else None
