"""Requests with N offered tools, built from BFCL's live dev files (live_simple questions, a pool of
live_multiple tools as distractors); only the dev files research/bfcl/data.py allows are read."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from research.bfcl.data import load_cases

QUESTIONS = "live_simple"  # one tool, one question: the tool that must win
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


def requests_with_tools(count: int, tools: int, seed: int = 0) -> list[ScalingRequest]:
    """`count` questions, each offered its own tool among `tools - 1` others, shuffled."""
    rng = random.Random(seed * 1000 + tools)
    pool = tool_pool()
    names = sorted(pool)
    cases = [c for c in load_cases(QUESTIONS, limit=count * 2) if len(c.tools) == 1][:count]
    out = []
    for case in cases:
        own = case.tools[0]
        others = [pool[n] for n in rng.sample(names, tools) if n != own["function"]["name"]][: tools - 1]
        offered = [own, *others]
        rng.shuffle(offered)
        body = {"model": "scaling", "messages": case.request["messages"], "tools": offered}
        out.append(ScalingRequest(body, own["function"]["name"]))
    return out
