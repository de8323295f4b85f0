"""Requests with N offered tools, built from BFCL's live dev files (live_simple and live_multiple
questions, a pool of their tools as distractors); only the dev files bench/bfcl/data.py allows
are read."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from functools import cache
from typing import Any

from bench.bfcl.data import load_cases, openai_name

QUESTIONS = ("live_simple", "live_multiple")  # the tool their answer calls must win
DISTRACTORS = ("live_multiple", "live_simple")


@dataclass(frozen=True)
class ScalingRequest:
    body: dict[str, Any]
    expected: str  # the tool BFCL's answer calls


def tool_pool() -> dict[str, dict[str, Any]]:
    """Every distinct tool (by name) of the distractor files."""
    pool: dict[str, dict[str, Any]] = {}
    for category in DISTRACTORS:
        for case in load_cases(category):
            for tool in case.tools:
                pool.setdefault(tool["function"]["name"], tool)
    return pool


@cache
def questions() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Every distinct question of the question files (its messages, and the tool its answer
    calls), in file order: live_simple's, then live_multiple's."""
    out, seen = [], set()
    for category in QUESTIONS:
        for case in load_cases(category):
            wanted = openai_name(next(iter(case.answers[0]))) if case.answers else None
            own = next((t for t in case.tools if t["function"]["name"] == wanted), None)
            text = json.dumps(case.request["messages"])
            if own is not None and text not in seen:
                seen.add(text)
                out.append((case.request, own))
    return out


def requests_with_tools(count: int, tools: int, seed: int = 0, start: int = 0) -> list[ScalingRequest]:
    """`count` questions from the `start`-th on, each offered its own tool among `tools - 1`
    others, shuffled. A run that moves `start` past the questions it sent never sends the same
    text twice, so no cache of the engine (the query vectors) flatters it."""
    rng = random.Random(seed * 1000 + tools)
    pool = tool_pool()
    names = sorted(pool)
    chosen = questions()[start : start + count]
    if len(chosen) < count:
        raise ValueError(f"only {len(chosen)} distinct questions from the {start}-th on, {count} asked")
    out = []
    for request, own in chosen:
        others = [pool[n] for n in rng.sample(names, tools) if n != own["function"]["name"]][: tools - 1]
        offered = [own, *others]
        rng.shuffle(offered)
        body = {"model": "scaling", "messages": request["messages"], "tools": offered}
        out.append(ScalingRequest(body, own["function"]["name"]))
    return out
