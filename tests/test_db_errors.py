"""With the database away, what needs it answers 503 in OpenAI's shape, and chat is still served."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import httpx

from shadowswitch.server.app import create_app
from shadowswitch.server.settings import Settings
from tests.support.policies import write_policies
from tests.support.servers import running


def test_feedback_and_decisions_answer_503_while_the_database_is_away(tmp_path: Path, upstream: str) -> None:
    db_file = tmp_path / "ss.db"
    policies = write_policies(
        tmp_path / "policies", upstream, {"task_type": "plain", "match": {"model": "plain-step"}}
    )
    settings = Settings(db_url=f"sqlite:///{db_file}", policies=policies, load_models=False)
    with running(create_app(settings)) as url, httpx.Client(base_url=url, timeout=30) as http:
        body = {"model": "plain-step", "messages": [{"role": "user", "content": "hello"}]}
        served = http.post("/v1/chat/completions", json=body)
        assert served.status_code == 200
        decision_id = served.headers["x-shadowswitch-decision-id"]
        with sqlite3.connect(db_file) as conn:
            conn.execute("ALTER TABLE decision RENAME TO decision_away")
        try:
            for response in (
                http.post("/v1/shadowswitch/feedback", json={"decision_id": decision_id, "success": False}),
                http.get(f"/v1/shadowswitch/decisions/{decision_id}"),
            ):
                assert response.status_code == 503, response.text
                error = response.json()["error"]
                assert error["code"] == "database_unavailable"
                assert "sqlite" not in error["message"].lower() and "decision" not in error["message"]
            assert http.post("/v1/chat/completions", json=body).status_code == 200  # still served
        finally:
            with sqlite3.connect(db_file) as conn:
                conn.execute("ALTER TABLE decision_away RENAME TO decision")
