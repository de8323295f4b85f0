"""`shadowswitch learn --follow`: real trainer processes on real PostgreSQL. Two of them at once
(a deployment that started one too many) learn a task type once; SIGTERM stops one cleanly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np

from shadowswitch.store import db
from shadowswitch.store.exemplars import ExemplarStore
from tests.support.exemplars import add
from tests.support.policies import write_policies
from tests.support.wait import eventually

ROOT = Path(__file__).resolve().parents[1]
POLICY = {"task_type": "support", "engine": {"learn": True, "target_agreement": 0.9}}


def trainer(db_url: str, policies: Path, log: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "shadowswitch.cli", "learn", "--follow", "--interval", "0.5"]
    command += ["--db", db_url, "--policies", str(policies)]
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    with log.open("w") as out:
        return subprocess.Popen(command, stderr=out, stdout=out, env={**os.environ, "PYTHONPATH": path})


def test_two_followers_learn_once_and_stop_on_sigterm(pg_url: str, tmp_path: Path) -> None:
    db.upgrade(pg_url)
    store = ExemplarStore(db.make_engine(pg_url))
    policies = write_policies(tmp_path / "policies", "http://127.0.0.1:9/v1", POLICY)
    add(store, 80, np.random.default_rng(11), 0)
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    trainers = [trainer(pg_url, policies, log) for log in logs]  # both race for the first round
    try:
        eventually(lambda: store.served("support") is not None, timeout_s=300, interval_s=0.1)
        promoted = store.served("support")
        assert promoted is not None and promoted.version == 1
        for log in logs:  # each has done a round since: the other one skipped it
            eventually(lambda log=log: "learning support:" in log.read_text(), timeout_s=300, interval_s=0.1)
        text = "".join(log.read_text() for log in logs)
        assert text.count("learning support: promoted version 1") == 1, text
        assert "skipped" in text, text
        for process in trainers:
            process.send_signal(signal.SIGTERM)
            assert process.wait(120) == 0  # after the run under way, on a busy machine
    finally:
        for process in trainers:
            if process.poll() is None:
                process.kill()
                process.wait(10)
    assert all("stopped" in log.read_text() for log in logs)
    assert [s.version for s in store.states("support")] == [1]  # the other did not learn it again
    with store.engine.connect() as connection:
        kinds = connection.exec_driver_sql("SELECT kind FROM audit_event WHERE task_type = 'support'").all()
    assert [k for (k,) in kinds] == ["learn_promote"]
