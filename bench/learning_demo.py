"""The learning curve's second traffic set: the demo agent's own steps (`--traffic demo`).

The travel agent (examples/travel_agent) runs its English task set once against the demo's
simulated large model (no latency, no malformed calls), and every model call it makes is kept as
a step: the request (messages so far and the tools) and the answer the model gave (a tool call,
or text after the tools ran). Tasks, not steps, are split between the shadow stream and the test
set — about one task in four of each kind (its first tag) is a test task — so the test requests
are other customers' requests of the same kinds, never a step of a task learned from.

In the curve, the same simulated model is the upstream: it answers a replayed step exactly as it
did when the step was recorded (it is deterministic for a given conversation).
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from bench.learning_curve import Traffic, judged
from examples.demo.simulated import BANNER, MODEL_NAME, Answer, SimulatedModel
from examples.travel_agent.task_sets import tasks_in
from examples.travel_agent.tasks import Task
from shadowswitch.answers.validate import Call, agree

TASK = "travel"
AGENT_MODEL = "travel-agent"
TEST_EVERY = 4  # one task in four of each kind is a test task


@dataclass(frozen=True)
class Step:
    """One model call of the agent: what it sent and what the large model answered."""

    task: str
    kind: str  # the task's first tag
    request: dict[str, Any]  # messages and tools, as the agent sent them
    answer: dict[str, Any]  # {"name", "arguments"} or {"content"}


class Recorder:
    """A simulated model (anything with `answer(body)`), keeping each request it answered."""

    name = MODEL_NAME
    banner = BANNER

    def __init__(self, model: Any) -> None:
        self.model = model
        self.seen: list[tuple[dict[str, Any], dict[str, Any]]] = []

    def answer(self, body: dict[str, Any]) -> Answer:
        answer: Answer = self.model.answer(body)
        self.seen.append((body, answer.message))
        return answer

    def steps(self, task: str, kind: str) -> list[Step]:
        """The requests answered since the last call, as steps of `task`; forgets them."""
        steps = []
        for body, message in self.seen:
            calls = message.get("tool_calls") or []
            if calls:
                function = calls[0]["function"]
                answer = {"name": function["name"], "arguments": json.loads(function["arguments"])}
            else:
                answer = {"content": message.get("content") or ""}
            steps.append(Step(task, kind, {"messages": body["messages"], "tools": body["tools"]}, answer))
        self.seen.clear()
        return steps


def step_answer(step: Step) -> dict[str, Any]:
    """The upstream's answer to a step, for the checkpoints' breakdown."""
    return step.answer


def record_runs(
    model: Any, agent_for: Callable[[Any], Any], tasks: Sequence[Any], kind: Callable[[Any], str]
) -> list[Step]:
    """Run an agent (`agent_for(openai client)`) on each task against `model` served over HTTP;
    every model call becomes a step of the task, tagged `kind(task)`."""
    from openai import OpenAI

    from examples.demo.servers import serving
    from examples.demo.upstream import create_upstream

    recorder = Recorder(model)
    steps: list[Step] = []
    with serving(create_upstream(recorder)) as url:
        agent = agent_for(OpenAI(base_url=f"{url}/v1", api_key="demo", max_retries=0))
        for task in tasks:
            result = agent.run(task)
            if not result.success:  # a step of a failed run is not what a good model does
                raise RuntimeError(f"the agent failed task {task.id} on the simulated model: {result}")
            steps += recorder.steps(task.id, kind(task))
    return steps


def record(tasks: list[Task], lang: str = "en") -> list[Step]:
    """Run the travel agent on `tasks` against the simulated model; every model call is a step."""
    from examples.travel_agent.agent import TravelAgent

    def agent_for(client: Any) -> TravelAgent:
        return TravelAgent(client, lang=lang)

    return record_runs(SimulatedModel(error_rate=0.0), agent_for, tasks, _kind)


def _kind(task: Task) -> str:
    """A travel task's kind: its first tag."""
    return task.tags[0] if task.tags else "other"


def split(tasks: list[Task], seed: int = 0) -> tuple[list[Task], list[Task]]:
    """(stream tasks, test tasks): in each kind, every `TEST_EVERY`th task from the second on is
    a test task, so every kind with two tasks or more has one in the test set."""
    kinds: dict[str, list[Task]] = defaultdict(list)
    for task in tasks:
        kinds[_kind(task)].append(task)
    stream: list[Task] = []
    test: list[Task] = []
    for group in kinds.values():
        for i, task in enumerate(group):
            (test if i % TEST_EVERY == 1 else stream).append(task)
    rng = random.Random(seed)
    rng.shuffle(stream)  # tasks in random order, each task's steps in its own order
    return stream, test


def demo_steps(
    tasks: list[Task] | None = None, seed: int = 0, lang: str = "en"
) -> tuple[list[Step], list[Step]]:
    """(shadow stream, test set) of steps, recorded from the agent's runs in `lang`."""
    stream_tasks, test_tasks = split(tasks if tasks is not None else tasks_in(lang), seed)
    steps = record(stream_tasks + test_tasks, lang)
    tests = {t.id for t in test_tasks}
    return [s for s in steps if s.task not in tests], [s for s in steps if s.task in tests]


def judge(step: Step, decision: dict[str, Any]) -> dict[str, Any]:
    """Did the local answer agree with the simulated model's: the same tool with the same
    arguments (the proxy's own comparison), or no tool where it answered in text?"""
    chosen = decision.get("chosen")
    arguments = dict(decision.get("arguments") or {})
    if chosen == "__no_tool__" or "name" not in step.answer:
        ok = chosen == "__no_tool__" and "name" not in step.answer
    else:
        ok = agree(Call(str(chosen), arguments), Call(step.answer["name"], step.answer["arguments"]))
    return judged(decision, ok, lambda: miss(step, decision))


def miss(step: Step, decision: dict[str, Any]) -> str:
    chosen = decision.get("chosen")
    if chosen == "__no_tool__":
        return "no tool where a call was due"
    if "name" not in step.answer:
        return "a call where none was due"
    if chosen != step.answer["name"]:
        return "wrong tool"
    given, want = set(decision.get("arguments") or {}), set(step.answer["arguments"])
    if want - given:
        return "a parameter the upstream sets, left out"
    if given - want:
        return "a parameter the upstream leaves out"
    return "a value the upstream writes otherwise"


@contextmanager
def simulated_upstream() -> Iterator[str]:
    from examples.demo.servers import serving
    from examples.demo.upstream import Simulated, create_upstream

    with serving(create_upstream(Simulated(latency=(0.0, 0.0), error_rate=0.0))) as url:
        yield url


def policy(upstream: str) -> dict[str, Any]:
    """The demo's own policy (examples/demo/servers.py: the embedding scorer), learning to the
    curve's target."""
    return {
        "task_type": TASK,
        "match": {"model": AGENT_MODEL},
        "upstream": {
            "model": f"openai/{MODEL_NAME}",
            "api_base": upstream + "/v1",
            "api_key_env": "REPLAY_KEY",
        },
        "rollout": {"mode": "shadow", "compare_percent": 0},
        "engine": {"model": "embedded", "scorer": "embedding", "target_agreement": 0.95, "learn": True},
        "breaker": {"consecutive_failures": 1000, "reprobe_after_s": 0},
        "feedback": {"tool_error_regex": r"^error:"},
    }


def demo_traffic(tasks: list[Task] | None = None, seed: int = 0, lang: str = "en") -> Traffic:
    stream, test = demo_steps(tasks, seed, lang)
    about = {
        "language": lang,
        "tasks": len({s.task for s in stream + test}),
        "stream_tasks": len({s.task for s in stream}),
        "test_tasks": sorted({s.task for s in test}),
        "split": f"by task: one in {TEST_EVERY} of each kind (first tag) is a test task",
        "upstream": "the demo's simulated large model, no latency, no malformed calls",
    }
    return Traffic(
        "demo",
        TASK,
        AGENT_MODEL,
        stream,
        test,
        judge,
        policy,
        simulated_upstream,
        about,
        answer_of=step_answer,
    )
