"""`shadowswitch bench zh --tasks demo`: the local engine on the demo agent's decision steps, the
Chinese task set beside the English one.

Each task is replayed as the travel agent runs it with a good model: per user turn, one decision
step per expected call (the conversation so far, the calls made and the booking system's real
results), then one step that should answer in text. Every step goes in-process through
`ChoiceEngine.decide_sync` with the demo's 13 tools, `encoder: auto`, thresholds 0 (the engine
always answers, as `bench bfcl` measures its scorers). Figures: choice accuracy (top-ranked tool
is the expected one), no-tool accuracy (a text step gets no tool call), full-call accuracy (the
engine's call has the same effect on the booking system as the expected one: same result and
same state, so 2027-03-14 and 2027年3月14日 are both right), and, against the default thresholds
(min_confidence 0.5, min_margin 0.05, the demo's), the share of steps the engine would serve
rather than hand to the upstream, and the share served and right.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.bfcl.results import git_commit, machine_info, write_results
from bench.zh.bench import value_counts
from examples.demo.simulated import reply
from examples.travel_agent.agent import SYSTEM
from examples.travel_agent.backend import Backend, ToolError
from examples.travel_agent.task_sets import LANGUAGES, tasks_in
from examples.travel_agent.tasks import Call, Task, fresh_backend
from examples.travel_agent.tools import TOOLS_V1


@dataclass(frozen=True)
class Step:
    """One decision the agent asks the model for, and what a good model answers."""

    task_id: str
    request: dict[str, Any]
    expected: Call | None  # None: answer in text
    backend: Backend  # the booking system as it stands before the step


def steps(task: Task, lang: str) -> Iterator[Step]:
    backend = fresh_backend()
    messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM[lang]}]
    for turn in task.turns:
        messages.append({"role": "user", "content": turn.user})
        results: list[dict[str, Any]] = []
        for i, call in enumerate(turn.calls):
            yield Step(task.id, _request(messages), call, copy.deepcopy(backend))
            call_id = f"call_{len(messages)}_{i}"
            arguments = json.dumps(call.arguments, ensure_ascii=False)
            function = {"name": call.name, "arguments": arguments}
            tool_call = {"id": call_id, "type": "function", "function": function}
            messages.append({"role": "assistant", "content": None, "tool_calls": [tool_call]})
            output = json.dumps(backend.call(call.name, dict(call.arguments)))
            results.append({"role": "tool", "tool_call_id": call_id, "content": output})
            messages.append(results[-1])
        yield Step(task.id, _request(messages), None, copy.deepcopy(backend))
        messages.append({"role": "assistant", "content": reply(results, chinese=lang == "zh")})


def _request(messages: list[dict[str, Any]]) -> dict[str, Any]:
    return {"model": "travel-agent", "messages": copy.deepcopy(messages), "tools": TOOLS_V1}


def effect(backend: Backend, name: str, arguments: dict[str, Any]) -> tuple[str, str] | None:
    """What a call does to a copy of the booking system: its result and the state after; None: error."""
    world = copy.deepcopy(backend)
    try:
        result = world.call(name, dict(arguments))
    except ToolError:
        return None
    return json.dumps(result, sort_keys=True), json.dumps(world.state(), sort_keys=True)


def judge(step: Step, choice: Any, min_confidence: float, min_margin: float) -> dict[str, Any]:
    top = choice.trace.candidates[0].id if choice.trace.candidates else choice.name
    called = choice.kind == "tool" and bool(choice.name) and not choice.abstain_reason
    expected = step.expected
    right_call = (
        called
        and expected is not None
        and choice.name == expected.name
        and effect(step.backend, choice.name, choice.arguments or {})
        == effect(step.backend, expected.name, dict(expected.arguments))
    )
    return {
        "task": step.task_id,
        "expects": expected.name if expected else None,
        "choice_ok": expected is not None and top == expected.name,
        "no_tool_ok": expected is None and not called,
        "call_ok": bool(right_call),
        "served": not choice.abstain_reason
        and choice.confidence >= min_confidence
        and choice.margin >= min_margin,
        "confidence": round(choice.confidence, 3),
        "chosen": top,
        "arguments": choice.arguments if called else None,
        "abstain": choice.abstain_reason,
    }


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def rate(flags: list[bool]) -> float | None:
        return round(sum(flags) / len(flags), 4) if flags else None

    calls = [r for r in rows if r["expects"]]
    texts = [r for r in rows if not r["expects"]]
    return {
        "steps": len(rows),
        "choice_acc": rate([r["choice_ok"] for r in calls]),
        "no_tool_acc": rate([r["no_tool_ok"] for r in texts]),
        "full_call_acc": rate([r["call_ok"] for r in calls]),
        "served_default_thresholds": rate([r["served"] for r in rows]),
        "served_and_right": rate(
            [r["served"] and (r["call_ok"] if r["expects"] else r["no_tool_ok"]) for r in rows]
        ),
        **value_counts(calls, rows),
    }


def run_demo_tasks(out: Path, limit: int | None = None) -> dict[str, Any]:
    from bench.zh.bench import policy
    from shadowswitch.engines.local import configure_torch, create_engine
    from shadowswitch.request import ChatView

    configure_torch()
    engine = create_engine()
    pol = policy("auto")
    defaults = policy("auto", default_thresholds=True).engine
    results: dict[str, list[dict[str, Any]]] = {}
    started = time.perf_counter()
    for lang in LANGUAGES:
        tasks = tasks_in(lang)[:limit] if limit else tasks_in(lang)
        todo = [s for task in tasks for s in steps(task, lang)]
        results[lang] = [
            judge(s, engine.decide_sync(ChatView.parse(s.request), pol), *thresholds(defaults)) for s in todo
        ]
    doc = {
        "benchmark": "zh-demo-tasks",
        "git_commit": git_commit(),
        "machine": machine_info(),
        "config": {"tasks": "examples/travel_agent (tasks.py, tasks_zh.py)", "encoder": "auto"},
        "seconds": round(time.perf_counter() - started, 1),
        "summary": {lang: summarise(rows) for lang, rows in results.items()},
        "steps": results,
    }
    write_results(out, doc)
    engine.close()
    return doc


def thresholds(engine: Any) -> tuple[float, float]:
    return engine.min_confidence, engine.min_margin
