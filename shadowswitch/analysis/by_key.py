"""The report split by agent key: who sent what, which path answered, what it cost. Pure."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from shadowswitch.analysis.pricing import call_cost
from shadowswitch.analysis.stats import rate
from shadowswitch.store.tables import Decision


def by_key(rows: Iterable[Decision]) -> list[dict[str, Any]]:
    """One entry per key name (null: requests that came without a key), as the budget counts money."""
    grouped: dict[str | None, list[Decision]] = defaultdict(list)
    for row in rows:
        grouped[row.key_name].append(row)
    return [_entry(name, grouped[name]) for name in sorted(grouped, key=lambda n: (n is None, n or ""))]


def _entry(name: str | None, rows: list[Decision]) -> dict[str, Any]:
    paths: dict[str, int] = defaultdict(int)
    for row in rows:
        paths[row.path] += 1
    pairs = [r for r in rows if r.agreement is not None]
    judged = [r for r in rows if r.success is not None]
    costs = [
        call_cost(r.upstream_model, r.prompt_tokens, r.completion_tokens) for r in rows if r.path != "local"
    ]
    priced = [c for c in costs if c is not None]
    return {
        "key": name,
        "requests": len(rows),
        "paths": dict(sorted(paths.items())),
        "same_call": rate(sum(1 for r in pairs if r.agreement), len(pairs)).json(),
        "success": rate(sum(1 for r in judged if r.success), len(judged)).json(),
        "upstream_usd": round(sum(priced), 9) if priced else None,  # a call may cost a millionth
        "task_types": sorted({r.task_type for r in rows}),
    }
