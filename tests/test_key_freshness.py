"""Agent keys hold by the clock, whatever the traffic: a key revoked or made anywhere is in force
on every replica within SHADOWSWITCH_KEY_CACHE_TTL_S (on PostgreSQL at once, by LISTEN/NOTIFY),
the first request after a quiet spell included; with the database away the last keys stay in
force. Real proxies, the openai SDK as the agent, the real CLI, real SQLite and PostgreSQL."""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy.engine import make_url
from typer.testing import CliRunner

from shadowswitch.cli import app as cli
from tests.support.keys import OPERATOR, make_key, revoke, status
from tests.support.policies import TRAVEL
from tests.support.postgres import PG_ADMIN
from tests.support.proxies import Proxies
from tests.support.wait import eventually

TTL = 1.0  # SHADOWSWITCH_KEY_CACHE_TTL_S in these tests
IDLE = 3 * TTL  # a quiet spell: no request at all


@pytest.fixture(params=["sqlite", "postgresql"])
def replicas(request: pytest.FixtureRequest, tmp_path: Path, upstream: str) -> Iterator[Proxies]:
    """Proxies on one database of each backend, whatever the backend under test."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'shared.db'}"
    else:
        url = request.getfixturevalue("pg_url")
    proxies = Proxies(tmp_path, upstream, url)
    with proxies.stack:
        yield proxies


def keys_cli(*args: str) -> str:
    result = CliRunner().invoke(cli, ["keys", *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_a_key_revoked_on_one_replica_is_refused_on_the_other_after_a_quiet_spell(replicas: Proxies) -> None:
    a = replicas(TRAVEL, admin_token=OPERATOR, key_cache_ttl_s=TTL)
    b = replicas(TRAVEL, admin_token=OPERATOR, key_cache_ttl_s=TTL)
    key = make_key(a, "roaming")
    eventually(lambda: status(b, key) == 200, what="the new key reaches the other replica")
    time.sleep(IDLE)
    revoke(a, "roaming")
    time.sleep(TTL)
    assert status(b, key) == 401  # the first request after the spell, one TTL after the revoke


def test_a_first_key_made_with_the_cli_closes_the_door_within_the_ttl(proxy: Any, db_url: str) -> None:
    url = proxy(TRAVEL, key_cache_ttl_s=TTL)
    assert status(url, "any-provider-key") == 200  # no key yet: open
    time.sleep(IDLE)
    key = keys_cli("create", "first-agent", "--db", db_url).strip().splitlines()[-1]
    time.sleep(TTL)
    assert status(url, "any-provider-key") == 401  # the first request after it: closed
    assert status(url, key) == 200


def test_on_postgresql_a_key_made_or_revoked_reaches_every_replica_at_once(proxy: Any, pg_url: str) -> None:
    proxies = Proxies(Path(proxy.directory), proxy.upstream, pg_url)
    with proxies.stack:
        slow = 30.0  # a TTL no test waits for: only the database's notice can carry the change
        a = proxies(TRAVEL, admin_token=OPERATOR, key_cache_ttl_s=slow)
        b = proxies(TRAVEL, admin_token=OPERATOR, key_cache_ttl_s=slow)
        key = make_key(a, "noticed")
        eventually(lambda: status(b, key) == 200, timeout_s=1.5, what="the new key on b at once")
        keys_cli("revoke", "noticed", "--db", pg_url)
        eventually(lambda: status(a, key) == status(b, key) == 401, timeout_s=1.5, what="revoked at once")


def _sqlite_away(url: str) -> tuple[Callable[[], None], Callable[[], None]]:
    """The keys' table renamed away and back: every read of it fails meanwhile."""
    path = make_url(url).database or ""

    def rename(source: str, target: str) -> Callable[[], None]:
        def run() -> None:
            with sqlite3.connect(path, timeout=30) as conn:
                conn.execute(f"ALTER TABLE {source} RENAME TO {target}")

        return run

    return rename("agent_key", "agent_key_away"), rename("agent_key_away", "agent_key")


def _postgres_away(url: str) -> tuple[Callable[[], None], Callable[[], None]]:
    """This test's own database closed to connections, and its open ones cut; then opened again
    (the shared server keeps running for the other tests)."""
    name = make_url(url).database

    def allow(yes: bool) -> Callable[[], None]:
        def run() -> None:
            with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
                conn.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS {str(yes).lower()}')
                if not yes:
                    cut = "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s"
                    conn.execute(cut, (name,))

        return run

    return allow(False), allow(True)


def test_with_the_database_away_the_last_keys_stay_in_force(
    replicas: Proxies, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    url = replicas(
        TRAVEL, admin_token=OPERATOR, key_cache_ttl_s=TTL, db_timeout_s=1, spool_dir=tmp_path / "spool"
    )
    key = make_key(url, "steady")
    away, back = (_sqlite_away if replicas.db_url.startswith("sqlite") else _postgres_away)(replicas.db_url)
    caplog.set_level(logging.INFO, logger="shadowswitch.access.keys")
    away()
    try:
        time.sleep(IDLE)  # several reads by the clock fail meanwhile
        assert status(url, key) == 200 and status(url, "any-provider-key") == 401
    finally:
        back()
    said = [r.getMessage() for r in caplog.records if r.name == "shadowswitch.access.keys"]
    assert sum("last known stay in force" in m for m in said) == 1, said  # once per outage

    # by the clock, once a connection gets through: on two cores busy with three other lanes the
    # pool's reconnection after the outage took longer than 5 s once
    def read_again() -> bool:
        return any("read again" in r.getMessage() for r in caplog.records)

    eventually(read_again, timeout_s=15, what="keys read again")
    keys_cli("revoke", "steady", "--db", replicas.db_url)
    eventually(lambda: status(url, key) == 401, timeout_s=TTL + 1, what="a revoke once the database is back")
