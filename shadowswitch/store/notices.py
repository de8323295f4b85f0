"""PostgreSQL's LISTEN/NOTIFY: a change written by one process reaches every replica at once.

A writer adds `notify(session, CHANNEL)` to its transaction (the notice goes out when it commits,
and not at all if it rolls back); each server keeps one connection listening and calls back on
every notice. Only PostgreSQL has it: on SQLite the readers' own clocks suffice (one machine).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

log = logging.getLogger(__name__)
KEYS = "shadowswitch_keys"  # an agent key was made or revoked


def notify(session: Session, channel: str) -> None:
    """Announce a change on `channel` when `session` commits (nothing on SQLite)."""
    bind = session.get_bind()
    if bind.dialect.name == "postgresql":
        session.connection().execute(text("SELECT pg_notify(:channel, '')"), {"channel": channel})


def listens(db_url: str) -> bool:
    return make_url(db_url).get_backend_name() == "postgresql"


async def listen(db_url: str, channel: str, on_notice: Callable[[], None], retry_s: float = 2.0) -> None:
    """Call `on_notice` for every notice on `channel`, until cancelled; a lost connection is
    opened again after `retry_s` (the readers' clocks cover the gap), and on reconnecting
    `on_notice` is called once, for a notice that may have been missed meanwhile."""
    import psycopg

    dsn = make_url(db_url).set(drivername="postgresql").render_as_string(hide_password=False)
    missed = lost = False
    while True:
        try:
            async with await psycopg.AsyncConnection.connect(dsn, autocommit=True, connect_timeout=10) as c:
                await c.execute(f'LISTEN "{channel}"')
                if missed:
                    on_notice()
                if lost:
                    log.info("listening for notices on %s again", channel)
                lost = False
                async for _ in c.notifies():
                    on_notice()
        except psycopg.Error as exc:
            if not lost:  # once an outage, not every retry
                why = type(exc).__name__
                log.warning("no notices on %s (%s); trying again every %g s", channel, why, retry_s)
            lost = True
        missed = True
        await asyncio.sleep(retry_s)
