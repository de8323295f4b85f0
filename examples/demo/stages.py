"""Run the task set through an agent at some base URL, in parallel, and summarise what happened."""

from __future__ import annotations

import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any

import httpx
from openai import OpenAI

from examples.travel_agent.agent import TaskResult, TravelAgent
from examples.travel_agent.tasks import Task


def run_tasks(
    base_url: str,
    tasks: Sequence[Task],
    *,
    tag: str,
    tools_version: str = "v1",
    concurrency: int = 8,
    on_done: Callable[[TaskResult], None] | None = None,
    api_key: str = "demo",
    lang: str = "en",
) -> list[TaskResult]:
    """Each task once; `tag` makes the customers (the sticky keys) of one stage distinct."""
    client = OpenAI(base_url=f"{base_url}/v1", api_key=api_key, max_retries=0, timeout=300)
    agent = TravelAgent(client, tools_version=tools_version, lang=lang)
    results: list[TaskResult] = []
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        futures = [pool.submit(agent.run, task, f"{tag}:{task.id}") for task in tasks]
        for future in as_completed(futures):
            result = future.result()
            results.append(result)
            if on_done:
                on_done(result)
    order = {task.id: i for i, task in enumerate(tasks)}
    return sorted(results, key=lambda r: order[r.task_id])


ROOM = 24  # a round's steps: under the proxy's 32 shadow runs in flight, with room for retries


def rounds(tasks: Sequence[Task], room: int = ROOM) -> list[list[Task]]:
    """The tasks in order, in rounds of at most `room` expected steps (each turn's calls and its
    answer): a shadow stage that waits for each round's shadow runs never has one skipped."""
    out: list[list[Task]] = [[]]
    used = 0
    for task in tasks:
        steps = sum(len(turn.calls) + 1 for turn in task.turns)
        if out[-1] and used + steps > room:
            out.append([])
            used = 0
        out[-1].append(task)
        used += steps
    return [r for r in out if r]


def drained(base_url: str, limit_s: float = 1800) -> None:
    """Until the proxy's background work (shadow runs, learning's pairs) has ended: its
    `shadowswitch_background_in_flight` gauge reads 0."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        for line in httpx.get(f"{base_url}/metrics", timeout=30).text.splitlines():
            if line.startswith("shadowswitch_background_in_flight ") and float(line.split()[1]) == 0:
                return
        time.sleep(0.2)


@dataclass
class Summary:
    tasks: int
    success: float
    p50_s: float
    p95_s: float
    steps: int
    paths: dict[str, int]  # steps served by each path (when a proxy said)
    parse_failures: int

    @property
    def parse_failure_rate(self) -> float:
        calls = self.steps
        return self.parse_failures / calls if calls else 0.0

    def json(self) -> dict[str, Any]:
        return {**self.__dict__, "parse_failure_rate": round(self.parse_failure_rate, 4)}


def summarise(results: Sequence[TaskResult]) -> Summary:
    seconds = sorted(r.seconds for r in results)
    paths = Counter(s.path or "direct" for r in results for s in r.steps)
    return Summary(
        tasks=len(results),
        success=sum(r.success for r in results) / len(results) if results else 0.0,
        p50_s=round(percentile(seconds, 50), 3),
        p95_s=round(percentile(seconds, 95), 3),
        steps=sum(len(r.steps) for r in results),
        paths=dict(paths),
        parse_failures=sum(r.parse_failures for r in results),
    )


def percentile(sorted_values: Sequence[float], q: float) -> float:
    if not sorted_values:
        return 0.0
    if len(sorted_values) == 1:
        return sorted_values[0]
    return statistics.quantiles(sorted_values, n=100, method="inclusive")[int(q) - 1]
