"""Agent keys and their usage in the database: shared by every replica and the CLI.

Synchronous; call from a worker thread on the request path.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import Engine, delete, text
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from shadowswitch.access.keys import SHOWN, AgentKey, KeySet, key_hash, new_key
from shadowswitch.errors import Conflict, NotFound
from shadowswitch.store.notices import KEYS, notify
from shadowswitch.store.tables import AgentKey as KeyRow
from shadowswitch.store.tables import AgentUsage, utcnow

# One statement, the same on PostgreSQL and SQLite (3.35+): a replica's count is never lost
# to another's, and the new count comes back in the same round trip.
COUNT_REQUEST = text(
    "INSERT INTO agent_usage (key_name, bucket, requests, usd, updated_at) "
    "VALUES (:key, :bucket, 1, 0, :now) "
    "ON CONFLICT (key_name, bucket) DO UPDATE SET requests = agent_usage.requests + 1, updated_at = :now "
    "RETURNING requests"
)
ADD_SPEND = text(
    "INSERT INTO agent_usage (key_name, bucket, requests, usd, updated_at) "
    "VALUES (:key, :bucket, 0, :usd, :now) "
    "ON CONFLICT (key_name, bucket) DO UPDATE SET usd = agent_usage.usd + :usd, updated_at = :now"
)
SPENT = text("SELECT usd FROM agent_usage WHERE key_name = :key AND bucket = :bucket")


def agent_key(row: KeyRow) -> AgentKey:
    task_types = frozenset(row.task_types) if row.task_types is not None else None
    return AgentKey(row.name, row.prefix, task_types, row.rpm, row.budget_usd_per_day)


class KeyStore:
    def __init__(self, engine: Engine):
        self.engine = engine

    def create(
        self,
        name: str,
        actor: str,
        task_types: Iterable[str] | None = None,
        rpm: int | None = None,
        budget_usd_per_day: float | None = None,
    ) -> tuple[str, KeyRow]:
        """A new key (returned once, in clear) and its row; 409 when the name is taken."""
        key = new_key()
        row = KeyRow(
            name=name,
            key_hash=key_hash(key),
            prefix=key[:SHOWN],
            task_types=sorted(task_types) if task_types is not None else None,
            rpm=rpm,
            budget_usd_per_day=budget_usd_per_day,
            created_by=actor,
        )
        with Session(self.engine) as session:
            session.add(row)
            notify(session, KEYS)  # every replica re-reads its keys at once (PostgreSQL)
            try:
                session.commit()
            except IntegrityError:
                raise Conflict(f"a key named {name!r} exists (names stay taken once revoked)") from None
            session.refresh(row)
        return key, row

    def list(self) -> list[KeyRow]:
        with Session(self.engine) as session:
            return list(session.exec(select(KeyRow).order_by(col(KeyRow.name))))

    def revoke(self, name: str, actor: str) -> KeyRow:
        with Session(self.engine) as session:
            row = session.get(KeyRow, name)
            if row is None:
                raise NotFound(f"no key named {name!r}", param="name")
            if row.revoked_at is None:
                row.revoked_at, row.revoked_by = utcnow(), actor
                session.add(row)
                notify(session, KEYS)
                session.commit()
                session.refresh(row)
            return row

    def known(self) -> KeySet:
        """Every unrevoked key by hash, and whether any key was ever made: what the cache holds."""
        with Session(self.engine) as session:
            rows = list(session.exec(select(KeyRow)))
        return KeySet({row.key_hash: agent_key(row) for row in rows if row.revoked_at is None}, bool(rows))


class UsageStore:
    def __init__(self, engine: Engine):
        self.engine = engine

    def count(self, key: str, minute: str, day: str) -> tuple[int, float]:
        """Count one request in `minute`; this minute's requests so far and the day's money."""
        with self.engine.begin() as connection:
            counted = {"key": key, "bucket": minute, "now": utcnow()}
            requests = connection.execute(COUNT_REQUEST, counted).scalar_one()
            spent = connection.execute(SPENT, {"key": key, "bucket": day}).scalar_one_or_none()
        return int(requests), float(spent or 0.0)

    def spend(self, key: str, day: str, usd: float) -> None:
        with self.engine.begin() as connection:
            connection.execute(ADD_SPEND, {"key": key, "bucket": day, "usd": usd, "now": utcnow()})

    def prune(self, before: datetime) -> int:
        """Windows last counted before `before` (old minutes, old days) go."""
        with Session(self.engine) as session:
            result = session.exec(delete(AgentUsage).where(col(AgentUsage.updated_at) < before))
            session.commit()
            return int(result.rowcount or 0)
