"""The learning curve's shop traffic set (`--traffic shop`): the shop agent's whole conversations.

The shop agent (examples/shop) talks with its simulated customers, each conversation from the
opening to the goodbye, against its simulated large model (with the mistakes it makes), and every
model call it makes is kept as a step: the request as the agent sent it (the 1,800-word policy,
the turns and tool results so far, the 14 tools) and the model's answer. The model is
deterministic for a given conversation, so sending a conversation's steps in order through the
proxy in shadow is the agent's own conversation through the proxy: each step is a pair.

The split is by customer: every fifth generated customer is held out, and all steps of their
conversations are test steps (canary 100%), so a test request's names, emails and ids never
appeared in the shadow stream. With `new_wording` (`--new-wording`) the held-out customers also
open their conversations in words the stream never used (`scenario_text.REWORDED`), as a real
agent's new customers do; every other draw of their conversations is the same.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from bench.learning_curve import Traffic
from bench.learning_demo import Step, judge, record_runs, step_answer
from bench.learning_helpdesk import policy as helpdesk_policy
from examples.shop.scenarios import Scenario, scenarios
from examples.shop.simulated import ShopModel

TASK = "shop"
AGENT_MODEL = "shop-agent"
HOLD_OUT_EVERY = 5  # every fifth customer's conversations are the test set
ALL_TOOLS = 16  # max_candidates: the agent's 14 tools and "no tool"


def record(conversations: list[Scenario]) -> list[Step]:
    """Run the agent on each conversation against the simulated model; every call is a step."""
    from examples.shop.agent import ShopAgent

    return record_runs(ShopModel(), ShopAgent, conversations, lambda s: s.intent)


def split(conversations: list[Scenario], seed: int = 0) -> tuple[list[Scenario], list[Scenario]]:
    """(stream, test): the test conversations are those of every fifth customer."""
    customers = list(dict.fromkeys(s.customer_id for s in conversations))
    held = set(customers[HOLD_OUT_EVERY - 1 :: HOLD_OUT_EVERY])
    stream = [s for s in conversations if s.customer_id not in held]
    test = [s for s in conversations if s.customer_id in held]
    rng = random.Random(seed)
    rng.shuffle(stream)  # conversations in random order, each one's steps in its own order
    rng.shuffle(test)  # so that the first N test steps span the kinds of request
    return stream, test


def shop_steps(
    conversations: list[Scenario] | None = None, seed: int = 0, new_wording: bool = False
) -> tuple[list[Step], list[Step]]:
    """(shadow stream, test set) of steps; `new_wording`: the test customers' openings reworded."""
    stream, test = split(conversations if conversations is not None else scenarios(), seed)
    if new_wording:
        reworded = {s.id: s for s in scenarios(reworded=True)}
        test = [reworded[s.id] for s in test]
    steps = record(stream + test)
    tests = {s.id for s in test}
    return [s for s in steps if s.task not in tests], [s for s in steps if s.task in tests]


def slipped(step: Step) -> bool:
    """Whether the simulated model's answer to `step` is one of its mistakes (an id mistyped or
    left out, a filler reply, a confirmation asked again, the wrong item named): what its own
    policy, without mistakes, answers there is something else. The recorded steps' model is
    `ShopModel()` with its defaults, deterministic per conversation."""
    planned, given, _, _ = ShopModel().decide(step.request)
    return planned != given


@contextmanager
def simulated_upstream() -> Iterator[str]:
    from examples.demo.servers import serving
    from examples.demo.upstream import create_upstream
    from examples.shop.simulated import simulated

    with serving(create_upstream(simulated())) as url:
        yield url


def policy(upstream: str) -> dict[str, Any]:
    """The help desk's policy (the embedding scorer, every tool a candidate) for the shop agent."""
    base = helpdesk_policy(upstream)
    engine = {**base["engine"], "max_candidates": ALL_TOOLS}
    return {**base, "task_type": TASK, "match": {"model": AGENT_MODEL}, "engine": engine}


def shop_traffic(
    conversations: list[Scenario] | None = None, seed: int = 0, new_wording: bool = False
) -> Traffic:
    stream, test = shop_steps(conversations, seed, new_wording)
    calls = [s for s in stream + test if "name" in s.answer]
    about = {
        "conversations": len({s.task for s in stream + test}),
        "stream_conversations": len({s.task for s in stream}),
        "test_conversations": len({s.task for s in test}),
        "tool_call_steps": len(calls),
        "text_steps": len(stream) + len(test) - len(calls),
        "max_candidates": ALL_TOOLS,
        "split": f"by customer: every {HOLD_OUT_EVERY}th generated customer's conversations are test steps",
        "test_openings": "reworded: words the stream never used" if new_wording else "the stream's phrasings",
        "upstream": "the shop's simulated large model, with its mistakes; deterministic per conversation",
    }
    return Traffic(
        "shop",
        TASK,
        AGENT_MODEL,
        stream,
        test,
        judge,
        policy,
        simulated_upstream,
        about,
        answer_of=step_answer,
        slipped=slipped,
    )
