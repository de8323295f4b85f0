"""The learning curve's help-desk traffic set (`--traffic helpdesk`): the IT help-desk agent's steps.

The help-desk agent (examples/helpdesk) runs its task set once against its simulated large model
(no latency, no malformed calls), and every model call it makes is kept as a step, as
bench/learning_demo.py does for the travel agent. The split is by phrasing template: in each
family of requests one of its four templates is held out (a different one from family to family),
and every step of a task written in it is a test step. So a test request is worded in a way the
shadow stream never showed: the curve measures generalisation to new wording, not recall.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from bench.learning_curve import Traffic
from bench.learning_demo import Step, judge, record_runs, step_answer
from examples.demo.simulated import MODEL_NAME
from examples.helpdesk.simulated import HelpdeskModel
from examples.helpdesk.task_set import FAMILIES, written_out
from examples.helpdesk.tasks import Task

TASK = "helpdesk"
AGENT_MODEL = "helpdesk-agent"
PER_TEMPLATE = 4  # tasks written out of each template for the curve
ALL_TOOLS = 40  # max_candidates: more than the agent's 33 tools and "no tool"


def record(tasks: list[Task]) -> list[Step]:
    """Run the agent on `tasks` against the simulated model; every model call becomes a step."""
    from examples.helpdesk.agent import HelpdeskAgent

    return record_runs(HelpdeskModel(error_rate=0.0), HelpdeskAgent, tasks, lambda t: t.kind)


def held_out_templates() -> set[str]:
    """One template of each family, rotating: family i holds out its template 1 + i % 4."""
    return {f"{f.kind}/{1 + i % len(f.templates)}" for i, f in enumerate(FAMILIES)}


def split(tasks: list[Task], seed: int = 0) -> tuple[list[Task], list[Task]]:
    """(stream tasks, test tasks): the test tasks are those written in a held-out template."""
    held = held_out_templates()
    stream = [t for t in tasks if t.template not in held]
    test = [t for t in tasks if t.template in held]
    rng = random.Random(seed)
    rng.shuffle(stream)  # tasks in random order, each task's steps in its own order
    rng.shuffle(test)  # so that the first N test steps (--test-size, --quick) span the families
    return stream, test


def helpdesk_steps(tasks: list[Task] | None = None, seed: int = 0) -> tuple[list[Step], list[Step]]:
    """(shadow stream, test set) of steps."""
    stream_tasks, test_tasks = split(tasks if tasks is not None else written_out(PER_TEMPLATE), seed)
    steps = record(stream_tasks + test_tasks)
    tests = {t.id for t in test_tasks}
    return [s for s in steps if s.task not in tests], [s for s in steps if s.task in tests]


@contextmanager
def simulated_upstream() -> Iterator[str]:
    from examples.demo.servers import serving
    from examples.demo.upstream import create_upstream
    from examples.helpdesk.simulated import simulated

    with serving(create_upstream(simulated())) as url:
        yield url


def policy(upstream: str) -> dict[str, Any]:
    """The demo's policy (the embedding scorer) for the help desk's model name, learning to the
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
        "engine": {
            "model": "embedded",
            "scorer": "embedding",
            "max_candidates": ALL_TOOLS,
            "target_agreement": 0.95,
            "learn": True,
            # A curve of what learning does, not of how busy the machine is: on a loaded machine a
            # decision past the default budget abstains for time, whatever it learned (how long
            # decisions take is reported beside: `choice_ms_p50`).
            "time_budget_ms": 10_000,
        },
        "breaker": {"consecutive_failures": 1000, "reprobe_after_s": 0},
        "feedback": {"tool_error_regex": r"^error:"},
    }


def helpdesk_traffic(tasks: list[Task] | None = None, seed: int = 0) -> Traffic:
    stream, test = helpdesk_steps(tasks, seed)
    about = {
        "tasks": len({s.task for s in stream + test}),
        "per_template": PER_TEMPLATE if tasks is None else None,
        "max_candidates": ALL_TOOLS,
        "stream_tasks": len({s.task for s in stream}),
        "test_tasks": len({s.task for s in test}),
        "held_out_templates": sorted(held_out_templates()),
        "split": "by phrasing template: one of each family's four is held out; test = new wording",
        "upstream": "the help desk's simulated large model, no latency, no malformed calls",
    }
    return Traffic(
        "helpdesk",
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
