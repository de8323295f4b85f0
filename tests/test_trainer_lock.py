"""One trainer per task type: the lock, and learners that skip what another one holds or judged.

On a real SQLite file (unit) and on real PostgreSQL (integration); the learners are the real
`BackgroundLearner`, their rounds called directly rather than on their thread.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from shadowswitch.learning import challenger
from shadowswitch.learning.background import ALREADY_JUDGED, FAILED, LOCKED, BackgroundLearner, Run
from shadowswitch.policy.models import Engine, Policy, PolicySet
from shadowswitch.store import db
from shadowswitch.store.exemplars import ExemplarStore
from shadowswitch.store.locks import try_lock
from tests.support.exemplars import add


def learners(url: str, n: int) -> tuple[list[BackgroundLearner], list[Run]]:
    """`n` learners on one database as `n` replicas would have them, and the runs they report."""
    policy = Policy(task_type="support", engine=Engine(learn=True, target_agreement=0.9))
    runs: list[Run] = []
    out = []
    for i in range(n):
        learner = BackgroundLearner(
            ExemplarStore(db.make_engine(url)), PolicySet(policies={"support": policy}), 0, on_run=runs.append
        )
        learner.actor = f"learner:replica-{i}"  # one process here; replicas differ by host and pid
        out.append(learner)
    return out, runs


def judged_by(store: ExemplarStore) -> list[tuple[str, str]]:
    with store.engine.connect() as connection:
        rows = connection.exec_driver_sql(
            "SELECT kind, actor FROM audit_event WHERE task_type = 'support' ORDER BY id"
        ).all()
    return [(str(kind), str(actor)) for kind, actor in rows]


def test_the_lock_is_taken_without_waiting_and_given_back(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'lock.db'}"
    one, two = db.make_engine(url), db.make_engine(url)
    with try_lock(one, "learn:support") as held:
        assert held
        with try_lock(two, "learn:support") as other:
            assert not other  # at once, not after a wait
        with try_lock(two, "learn:billing") as other_task:
            assert other_task  # one lock per task type
    with try_lock(two, "learn:support") as held_after:
        assert held_after
    memory = db.make_engine("sqlite://")
    with try_lock(memory, "learn:support") as held, try_lock(memory, "learn:support") as again:
        assert held and not again


def test_a_replica_skips_what_another_holds_or_has_judged(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'learn.db'}"
    db.upgrade(url)
    (a, b), runs = learners(url, 2)
    add(a.store, 80, np.random.default_rng(7), 0)

    with try_lock(a.store.engine, "learn:support"):  # another trainer is learning it now
        b.round()
    assert [r.status for r in runs] == [LOCKED] and judged_by(a.store) == []
    b.round()  # the lock is free again: b learns
    a.round()  # a finds the pairs judged since it last looked: nothing to do
    assert [r.status for r in runs] == [LOCKED, "promoted", ALREADY_JUDGED]
    assert judged_by(a.store) == [("learn_promote", "learner:replica-1")]

    challenger.rollback(a.store, "support", "cli:someone")
    for learner in (a, b):  # a rollback is not undone by the next round: it waits for new pairs
        learner._seen.clear()
        learner.round()
    assert [r.status for r in runs[3:]] == [ALREADY_JUDGED, ALREADY_JUDGED]
    assert a.store.served("support") is None
    add(a.store, 20, np.random.default_rng(8), 80)
    a.round()
    assert runs[-1].status in ("promoted", "judged") and len(runs) == 6


def test_one_trainer_on_postgres(pg_url: str) -> None:
    db.upgrade(pg_url)
    (a, b), runs = learners(pg_url, 2)
    add(a.store, 80, np.random.default_rng(9), 0)
    with try_lock(a.store.engine, "learn:support") as held:  # a session-level advisory lock
        assert held
        b.round()
    b.round()
    a.round()
    assert [r.status for r in runs] == [LOCKED, "promoted", ALREADY_JUDGED]
    assert judged_by(a.store) == [("learn_promote", "learner:replica-1")]


@pytest.mark.integration  # a process of its own
def test_a_run_apart_learns_as_the_thread_does_and_a_failed_one_is_said(tmp_path: Path) -> None:
    """The server's learner runs each learning run in a process of its own: its outcome is the
    thread's (the same pairs judged the same way), and a run that raises there (a vector of the
    wrong size) is a `failed` run, not a dead learning thread."""
    url = f"sqlite:///{tmp_path / 'apart.db'}"
    db.upgrade(url)
    add(ExemplarStore(db.make_engine(url)), 240, np.random.default_rng(3), 0)
    policy = Policy(task_type="support", engine=Engine(learn=True, target_agreement=0.9))
    runs: list[Run] = []
    apart = BackgroundLearner(
        ExemplarStore(db.make_engine(url)),
        PolicySet(policies={"support": policy}),
        0,
        on_run=runs.append,
        apart=True,
    )
    assert apart.apart
    dry = challenger.learn(ExemplarStore(db.make_engine(url)), "support", policy.engine, "test", dry_run=True)
    apart.round()
    assert runs[-1].status == ("promoted" if dry["evaluation"]["promote"] else "judged"), (runs, dry)

    with db.make_engine(url).begin() as connection:
        connection.exec_driver_sql(
            "UPDATE exemplar SET vector = x'0102' WHERE id = (SELECT MAX(id) FROM exemplar)"
        )
    add(ExemplarStore(db.make_engine(url)), 30, np.random.default_rng(4), 240)
    apart.wake()  # forget the pairs seen: the round looks again
    apart.round()
    assert runs[-1].status == FAILED, runs
