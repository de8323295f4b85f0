"""Certificates on a real database: the prior and learned states certified on held-out pairs,
promotion when a certified region serves more, the monitor's withdrawal, the default policy.
Exemplars are written as the pipeline writes them (tests/support/exemplars.py; no models)."""

from __future__ import annotations

from pathlib import Path

import anyio
import numpy as np
import pytest

from shadowswitch.cli.learning import _learn_line
from shadowswitch.engines.base import Choice
from shadowswitch.learning import challenger, promotion
from shadowswitch.learning.certificate import Certificate
from shadowswitch.learning.fit import Outcome
from shadowswitch.learning.recorder import Learning
from shadowswitch.learning.served import ServedMemories
from shadowswitch.policy.loader import load_policies
from shadowswitch.policy.models import Engine, Policy
from shadowswitch.store import db
from shadowswitch.store.exemplars import ExemplarStore
from shadowswitch.store.tables import RegionCertificate
from tests.support.exemplars import TOOLS, add, exemplar

POLICY = Engine(target_agreement=0.95)


@pytest.fixture
def store(db_url: str) -> ExemplarStore:
    db.upgrade(db_url)
    return ExemplarStore(db.make_engine(db_url))


def kinds(store: ExemplarStore) -> list[str]:
    with store.engine.connect() as connection:
        return [r[0] for r in connection.exec_driver_sql("SELECT kind FROM audit_event ORDER BY id").all()]


def test_the_default_policy_certifies(tmp_path: Path) -> None:
    upstream = "upstream: {model: openai/x, api_base: 'http://127.0.0.1:9'}"
    (tmp_path / "support.yaml").write_text(f"task_type: support\nmatch: {{tools_include: [x]}}\n{upstream}\n")
    assert load_policies(tmp_path).policies["support"].engine.certify is True
    assert Engine().certify is True


def test_a_clean_stream_certifies_a_learned_state_and_a_poisoned_one_nothing(store: ExemplarStore) -> None:
    """The zero-shot ranking is mostly wrong here, so the prior is never certified; the learned
    state is, on its cross-fitted pairs, and its certificate is what the replicas serve from."""
    rng = np.random.default_rng(2)
    add(store, 120, rng, 0)
    result = challenger.learn(store, "support", POLICY, "test")
    assert result["certificate"]["threshold"] is None  # the prior
    assert result["status"] == "promoted", result["evaluation"]["why_not"]
    mine = result["evaluation"]["challenger"]
    assert mine["threshold"] is not None and mine["lower_bound"] >= 0.9 and mine["served"] >= 60
    history = [(c.version, c.status) for c in store.certificates.history("support")]
    assert history == [(0, "uncertified"), (1, "certified")]
    assert kinds(store) == ["learn_promote"]
    memories = ServedMemories(store)
    memories.refresh()
    memory = memories.get("support")
    assert memory is not None and memory.min_confidence == mine["threshold"]
    assert memories.certified("support", 1) == mine["threshold"] and memories.certified("support", 0) is None

    add(store, 60, rng, 120)  # more of the same: a challenger can serve no more than all of it
    again = challenger.learn(store, "support", POLICY, "test")
    assert again["status"] == "judged" and "not more" in again["evaluation"]["why_not"]
    assert again["evaluation"]["served"]["threshold_in_force"] == mine["threshold"]
    assert store.served("support").version == 1  # type: ignore[union-attr]


def test_a_poisoned_stream_never_certifies(store: ExemplarStore) -> None:
    add(store, 160, np.random.default_rng(3), 0, poisoned=True)
    result = challenger.learn(store, "support", POLICY, "test")
    assert result["status"] == "judged" and result["certificate"]["threshold"] is None
    assert result["evaluation"]["challenger"]["threshold"] is None
    assert "no certified region" in result["evaluation"]["why_not"]
    mine = result["evaluation"]["challenger"]
    misses = mine["misses"]  # what holds the region back, newest first, each found in the store
    assert 0 < len(misses) == min(mine["missed"], promotion.SHOWN) and [m["pair"] for m in misses] == sorted(
        (m["pair"] for m in misses), reverse=True
    )
    stored = {r.id: r for r in store.load("support", "test-encoder")}
    for miss in misses:
        row = stored[miss["pair"]]
        assert miss["decision_id"] == row.decision_id and miss["upstream"] == row.label
        assert miss["confidence"] >= mine["next_threshold"] and miss["agreement"] < promotion.MISS
        assert miss["chosen"] in TOOLS  # the engine's choice, a candidate it was offered
    line = _learn_line(result)
    assert f"held back at ≥ {mine['next_threshold']} by {mine['missed']} misses" in line
    assert str(misses[0]["decision_id"]) in line
    assert mine["tool_sets"] == {"misses": 1, "held_out": 1} and "tool sets" not in line  # one agent
    assert store.served("support") is None
    assert [c.status for c in store.certificates.history("support")] == ["uncertified"]
    assert kinds(store) == ["learn_reject"]


def test_misses_all_one_agents_are_said_to_be(store: ExemplarStore) -> None:
    """Two agents share the task type; one's upstream answers alike requests any way: the misses
    that hold the region back are all that agent's, and the run says so."""
    add(store, 240, np.random.default_rng(4), 0, poisoned=True, every=4)
    result = challenger.learn(store, "support", POLICY, "test")
    mine = result["evaluation"]["challenger"]
    assert mine["missed"] > 0, mine
    assert mine["tool_sets"] == {"misses": 1, "held_out": 2}
    stored = {r.id: r.tools_key for r in store.load("support", "test-encoder")}
    assert {stored[m["pair"]] for m in mine["misses"]} == {"k2"}
    assert "all in one of the 2 tool sets it serves" in _learn_line(result)


def test_a_call_of_the_upstreams_tool_with_another_value_is_said_to_be(store: ExemplarStore) -> None:
    """The engine calls the upstream's tool, but one in four look-ups with a value read otherwise:
    the misses name the parameter, not a choice."""
    rng = np.random.default_rng(5)
    for i in range(200):
        kind = i % len(TOOLS)
        row = exemplar(kind, TOOLS[kind], rng, i)
        if kind == 0 and i % 4 == 0:
            row.args_status = "differ"
            row.arguments = {"order_id": {"type": "str", "in_text": True, "local": True, "agrees": False}}
        store.add(row)
    result = challenger.learn(store, "support", POLICY, "test")
    misses = result["evaluation"]["challenger"]["misses"]
    assert misses and all(m["chosen"] == m["upstream"] == "lookup_order" for m in misses), misses
    assert all(m["values"] == ["order_id"] for m in misses)
    line = _learn_line(result)
    assert "lookup_order with another order_id at" in line
    missed = result["evaluation"]["challenger"]["missed"]
    assert f"by {missed} {'miss' if missed == 1 else 'misses'}:" in line


def outcomes(confidences: list[float], correct: float = 1.0) -> list[Outcome]:
    return [Outcome(c, 0.5, correct, False) for c in confidences]


def test_a_challenger_replaces_the_served_state_only_when_its_region_serves_more() -> None:
    """Both certified at the target: the one serving more of the same held-out pairs wins."""
    ids = list(range(1, 301))
    served = dict(zip(ids, outcomes([0.9] * 150 + [0.6] * 150), strict=True))
    standing = Certificate(0.95, 300, 0.85)
    wider = outcomes([0.95] * 300)
    cert, figures = promotion.verdict(wider, ids, served, standing, 0.85, 0.0, 0)
    assert cert.threshold is not None and figures["promote"]
    assert figures["challenger"]["serves_held_out"] == 300 and figures["served"]["serves_held_out"] == 150
    narrower = outcomes([0.99] * 100 + [0.3] * 200, 1.0)
    narrower = [*narrower[:100], *outcomes([0.3] * 200, 0.0)]
    cert, figures = promotion.verdict(narrower, ids, served, standing, 0.85, 0.0, 0)
    assert cert.threshold == 0.99 and not figures["promote"]
    assert "serves 100 of 300 held-out pairs, the served state's 150: not more" in figures["why_not"]


def test_the_monitor_withdraws_a_certificate_its_answers_disprove(store: ExemplarStore) -> None:
    add(store, 5, np.random.default_rng(4), 0)
    row = RegionCertificate(task_type="support", version=0, status="certified", threshold=0.6)
    store.certificates.record(row)
    memories = ServedMemories(store)
    memories.refresh()
    withdrawn: list[str] = []
    learning = Learning(store, memories, withdrawn.append)
    policy = Policy.model_validate({"task_type": "support", "engine": {"target_agreement": 0.95}})
    choice = Choice("tool", "lookup_order", confidence=0.8)
    assert learning.uncertified(policy, choice) is None
    low = Choice("tool", "x", confidence=0.5)
    assert "below the certified 0.6" in (learning.uncertified(policy, low) or "")

    async def stream() -> None:
        for _ in range(30):
            await learning.compared(policy, choice, True)
        for _ in range(10):
            await learning.compared(policy, choice, False)

    anyio.run(stream)
    row = store.certificates.current("support")
    assert row is not None and row.status == "withdrawn" and row.since_pair == 5
    assert withdrawn == ["support"] and kinds(store) == ["learn_withdraw"]
    assert (learning.uncertified(policy, choice) or "").startswith("uncertified: no certified region")
    opted_out = policy.model_copy(update={"engine": Engine(certify=False)})
    assert learning.uncertified(opted_out, choice) is None
