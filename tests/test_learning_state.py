"""Learning's states on a real database: fitting to the target, promotion only on evidence,
the audit of each run, rollback, exclusion. Exemplars are written as the pipeline writes them,
with vectors in clusters standing for kinds of request (no models needed)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from shadowswitch.learning import challenger
from shadowswitch.learning.fit import GRID, Pair, at, decide, fit
from shadowswitch.learning.rules import learned_constants
from shadowswitch.policy.models import Engine
from shadowswitch.store import db
from shadowswitch.store.exemplars import ExemplarStore
from tests.support.exemplars import TOOLS, add, vector, zero_shot


@pytest.fixture
def store(db_url: str) -> ExemplarStore:
    db.upgrade(db_url)
    return ExemplarStore(db.make_engine(db_url))


def test_thresholds_are_the_loosest_meeting_the_target() -> None:
    rng = np.random.default_rng(1)
    pairs = []
    for i in range(120):
        kind = i % 3
        label = TOOLS[kind] if rng.uniform() > 0.1 else TOOLS[(kind + 1) % 3]  # 10% noise
        pairs.append(Pair(i, vector(kind, rng), label, zero_shot(rng), "lookup_order", "agree"))
    fitted = fit(pairs, target=0.85)
    outcomes = decide(pairs, pairs, fitted.weight, 1.0)
    assert at(outcomes, fitted.min_confidence)["agreement"] >= 0.85
    looser = [t for t in GRID if t < fitted.min_confidence]
    if looser:
        assert (at(outcomes, looser[-1])["agreement"] or 0) < 0.85
    assert fitted.weight > 0  # the memory is what makes these agree
    assert fitted.coverage > 0.5


def test_better_challenger_is_promoted_worse_is_not_and_rollback_restores(store: ExemplarStore) -> None:
    rng = np.random.default_rng(2)
    policy = Engine(target_agreement=0.9, certify=False)
    add(store, 30, rng, 0)
    assert challenger.learn(store, "support", policy, "test")["status"] == "not_enough_pairs"
    add(store, 50, rng, 30)
    first = challenger.learn(store, "support", policy, "test")
    assert first["status"] == "promoted", first
    assert first["version"] == 1
    assert first["evaluation"]["wins"] > first["evaluation"]["losses"]
    promoted = store.served("support")
    assert promoted is not None and promoted.version == 1 and promoted.memory_weight > 0

    add(store, 80, rng, 80, poisoned=True)  # the upstream starts answering at random
    second = challenger.learn(store, "support", policy, "test")
    assert second["status"] == "judged" and second["evaluation"]["promote"] is False
    assert second["evaluation"]["why_not"]
    served = store.served("support")
    assert served is not None and served.version == 1

    with store.engine.connect() as connection:
        rows = connection.exec_driver_sql(
            "SELECT kind, reason FROM audit_event WHERE task_type = 'support' ORDER BY id"
        ).all()
    kinds = [r[0] for r in rows]
    assert kinds == ["learn_promote", "learn_reject"]
    figures = json.loads(rows[1][1])
    assert figures["evaluation"]["why_not"] == second["evaluation"]["why_not"]

    back = challenger.rollback(store, "support", "test")
    assert back["served_version"] == 0 and store.served("support") is None
    assert challenger.status(store, "support", policy)["thresholds"]["source"] == "policy"


def test_dry_run_changes_nothing(store: ExemplarStore) -> None:
    add(store, 80, np.random.default_rng(3), 0)
    result = challenger.learn(
        store, "support", Engine(target_agreement=0.9, certify=False), "test", dry_run=True
    )
    assert result["evaluation"]["promote"] is True
    assert store.served("support") is None


def test_negative_feedback_excludes_and_the_cap_evicts_the_oldest(db_url: str) -> None:
    db.upgrade(db_url)
    store = ExemplarStore(db.make_engine(db_url), cap=10)
    rng = np.random.default_rng(4)
    add(store, 15, rng, 0)
    kept = store.load("support", "test-encoder")
    assert len(kept) == 10 and kept[0].decision_id == f"d{5:030d}"
    assert store.exclude(f"d{7:030d}") == 1
    assert store.count("support") == {"usable": 9, "excluded": 1}
    assert all(r.decision_id != f"d{7:030d}" for r in store.load("support", "test-encoder"))


def test_a_pair_judged_failed_before_it_is_stored_is_stored_excluded(db_url: str) -> None:
    """The agent's next request brought the tool's error back before the pair's shadow run was
    done: feedback found no exemplar to exclude, so the exemplar is stored excluded."""
    from sqlmodel import Session

    from shadowswitch.store.tables import Decision
    from tests.support.exemplars import exemplar

    db.upgrade(db_url)
    engine = db.make_engine(db_url)
    store = ExemplarStore(engine)
    failed, judged_ok = f"d{0:030d}", f"d{1:030d}"
    with Session(engine) as session:
        for id_, success in ((failed, False), (judged_ok, True)):
            session.add(
                Decision(
                    id=id_,
                    task_type="support",
                    path="generative",
                    route="shadow",
                    mode="shadow",
                    success=success,
                )
            )
        session.commit()
    rng = np.random.default_rng(6)
    for i in range(3):  # the third has no decision row yet: not judged
        store.add(exemplar(i % len(TOOLS), TOOLS[i % len(TOOLS)], rng, i))
    kept = [r.decision_id for r in store.load("support", "test-encoder")]
    assert kept == [judged_ok, f"d{2:030d}"]
    assert store.count("support") == {"usable": 2, "excluded": 1}


def test_constants_are_learned_only_when_the_upstream_always_sets_them() -> None:
    always = [("get_weather", {"units": {"type": "str", "in_text": False, "value": "metric"}})] * 6
    assert learned_constants(always) == {"get_weather": {"units": "metric"}}
    mixed = [*always, ("get_weather", {"units": {"type": "str", "in_text": False, "value": "imperial"}})]
    assert learned_constants(mixed) == {}
    said = [("get_weather", {"city": {"type": "str", "in_text": True}})] * 6
    assert learned_constants(said) == {}
    assert learned_constants(always[:3]) == {}  # too few to call it a constant


def test_replicas_on_postgres_serve_the_same_version(pg_url: str) -> None:
    from shadowswitch.learning.served import ServedMemories

    db.upgrade(pg_url)
    writer = ExemplarStore(db.make_engine(pg_url))
    add(writer, 80, np.random.default_rng(5), 0)
    replicas = [ServedMemories(ExemplarStore(db.make_engine(pg_url))) for _ in range(2)]
    for replica in replicas:
        replica.refresh()
        assert replica.get("support") is None  # the prior: nothing learned yet
    assert (
        challenger.learn(writer, "support", Engine(target_agreement=0.9, certify=False), "test")["status"]
        == "promoted"
    )
    for replica in replicas:
        replica.refresh()
    memories = [r.get("support") for r in replicas]
    assert all(m is not None and m.version == 1 for m in memories)
    assert memories[0] is not None and memories[0].constants == {
        "lookup_order": {"units": "metric"},
        "escalate_order": {"units": "metric"},
    }
    challenger.rollback(writer, "support", "test")
    for replica in replicas:
        replica.refresh()
        assert replica.get("support") is None


def test_a_learned_constant_fills_only_what_the_text_left_and_the_schema_allows() -> None:
    from shadowswitch.engines.local.arguments.grounding import Filled
    from shadowswitch.engines.local.arguments.learned import learned_values

    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "units": {"type": "string", "enum": ["metric", "imperial"]},
            "days": {"type": "integer"},
        },
        "required": ["city", "units"],
    }
    filled = Filled(missing=["units"])
    filled.put("city", ("Paris", {"source": "text", "start": 0, "end": 5, "text": "Paris"}))
    learned_values(filled, schema, {"units": "metric", "city": "Rome", "days": "three"}, version=4)
    assert filled.arguments == {
        "city": "Paris",
        "units": "metric",
    }  # the text's city stays; "three" is no integer
    assert filled.sources["units"] == {"source": "learned", "state_version": 4}
    assert filled.missing == [] and filled.abstain_reason is None

    refused = Filled(missing=["units"])
    learned_values(refused, schema, {"units": "kelvin"}, version=4)  # not an option of the enum
    assert refused.abstain_reason == "missing_value:units"


def test_the_cli_learns_shows_and_rolls_back(db_url: str, tmp_path: Any) -> None:
    from typer.testing import CliRunner

    from shadowswitch.cli import app

    db.upgrade(db_url)
    add(ExemplarStore(db.make_engine(db_url)), 80, np.random.default_rng(6), 0)
    upstream = "upstream: {model: openai/x, api_base: 'http://127.0.0.1:9'}"
    engine = "engine: {target_agreement: 0.9, certify: false}"  # the CLI's steps, not certificates
    (tmp_path / "support.yaml").write_text(
        f"task_type: support\nmatch: {{tools_include: [x]}}\n{upstream}\n{engine}\n"
    )
    runner = CliRunner()
    dry = runner.invoke(app, ["learn", "support", "--dry-run", "--db", db_url, "--policies", str(tmp_path)])
    assert dry.exit_code == 0 and "judged" in dry.output and "wins" in dry.output
    learned = runner.invoke(app, ["learn", "support", "--json", "--db", db_url, "--policies", str(tmp_path)])
    assert learned.exit_code == 0 and json.loads(learned.output)["version"] == 1
    shown = runner.invoke(app, ["learn", "status", "support", "--json", "--db", db_url])
    (status,) = json.loads(shown.output)
    assert status["served_version"] == 1 and status["pairs"] == 80 and len(status["curve"]) > 10
    (version,) = status["versions"]
    assert version["learned_from"] and version["held_out"]["pairs"] and version["live"]["decisions"] == 0
    records = {t["tool"]: t for t in status["tools"]}
    lookups = records["lookup_order"]  # every call the engine made of it agreed: served, on its record
    assert lookups["judged"] > 0 and lookups["agreed"] == lookups["judged"] <= lookups["pairs"]
    assert lookups["record"] > 0.95 and not lookups["unproven"]
    assert all(t["unproven"] for t in records.values() if t["judged"] == 0)  # never judged: held back
    table = runner.invoke(app, ["learn", "status", "support", "--db", db_url])
    assert "versions: support" in table.output and str(version["learned_from"]) in table.output
    assert "tools: support" in table.output and "no: unproven" in table.output
    back = runner.invoke(app, ["learn", "rollback", "support", "--json", "--db", db_url])
    assert json.loads(back.output)["served_version"] == 0
    # a policy directory named but not there, or invalid, is an error, not the engine's defaults
    missing = runner.invoke(app, ["learn", "support", "--db", db_url, "--policies", str(tmp_path / "nope")])
    assert missing.exit_code == 2 and "not a directory" in missing.output
    (tmp_path / "support.yaml").write_text("task_type: support\nengine: {target_agreement: 2}\n")
    invalid = runner.invoke(app, ["learn", "support", "--db", db_url, "--policies", str(tmp_path)])
    assert invalid.exit_code == 2 and "target_agreement" in invalid.output, invalid.output


def test_a_reload_fits_the_learned_values_again_only_when_the_exemplars_changed(
    store: ExemplarStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    from shadowswitch.learning import rules
    from shadowswitch.learning import served as served_module

    add(store, 80, np.random.default_rng(5), 0)
    engine = Engine(target_agreement=0.9, certify=False)
    assert challenger.learn(store, "support", engine, "test")["status"] == "promoted"
    fits: list[int] = []

    def counted(*args: Any) -> Any:
        fits.append(1)
        return rules.learned_rules(*args)

    monkeypatch.setattr(served_module, "learned_rules", counted)
    replica = served_module.ServedMemories(store)
    first = replica.load("support")
    again = replica.load("support")  # the reload every RELOAD_S: the same exemplars
    assert len(fits) == 1 and first is not None and again is not None
    assert again.constants == first.constants and again.usual == first.usual
    store.exclude(store.load("support", first.encoder)[0].decision_id)  # negative feedback
    assert replica.load("support") is not None and len(fits) == 2
