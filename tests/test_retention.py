"""Retention: prompts are kept only when asked (and capped), and old decisions are pruned."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from shadowswitch.cli import app as cli
from shadowswitch.server.settings import Settings
from shadowswitch.store import db
from shadowswitch.store.decisions import DecisionStore, _Insert
from shadowswitch.store.tables import Decision, utcnow
from tests.support.clients import client, decision

LONG = "please remember this " * 20


def ask(url: str) -> str:
    raw = client(url).chat.completions.with_raw_response.create(
        model="m", messages=[{"role": "user", "content": LONG}]
    )
    return raw.headers["x-shadowswitch-decision-id"]


def test_prompts_are_not_stored_by_default(proxy: Any) -> None:
    url = proxy()
    assert decision(url, ask(url))["prompt"] is None


def test_prompts_are_stored_when_asked_and_capped(proxy: Any) -> None:
    url = proxy(store_prompts=True, prompt_cap_bytes=60)
    stored = decision(url, ask(url))["prompt"]
    assert stored.startswith('[{"role": "user", "content": "please remember')
    assert len(stored.encode()) <= 60


def test_db_prune_uses_the_retention_setting(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    db.upgrade(db_url)
    store = DecisionStore(db.make_engine(db_url))
    old, new = (
        Decision(id=f"d{i}", task_type="t", path="generative", route="generative", mode="off")
        for i in range(2)
    )
    old.created_at = utcnow() - timedelta(days=10)
    store.write([_Insert(old), _Insert(new)])
    monkeypatch.setenv("SHADOWSWITCH_RETENTION", "7d")
    result = CliRunner().invoke(cli, ["db", "prune", "--db", db_url])
    assert result.exit_code == 0 and "deleted 1 decisions and 0 exemplars older than 7d" in result.output
    assert store.get("d0") is None and store.get("d1") is not None


def test_a_retention_people_cannot_read_is_refused() -> None:
    with pytest.raises(ValidationError, match="24h"):
        Settings(retention="a month")
