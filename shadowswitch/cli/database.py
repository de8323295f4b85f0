"""`shadowswitch db ...`: the database schema and retention."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

import typer

from shadowswitch.cli.common import DbOpt, console, open_stores, parse_age, redact_url, settings_from

db_app = typer.Typer(help="Database schema and retention.", no_args_is_help=True)


@db_app.command("upgrade")
def db_upgrade(db: DbOpt = None) -> None:
    """Create or migrate the database schema to the latest version."""
    from shadowswitch.store import db as database

    url = settings_from(db_url=db).db_url
    database.upgrade(url)
    console.print(f"database at head: {redact_url(url)}")


@db_app.command("prune")
def db_prune(
    older_than: Annotated[
        str | None, typer.Option("--older-than", help="Age like 30d, 12h [env SHADOWSWITCH_RETENTION, 30d]")
    ] = None,
    db: DbOpt = None,
) -> None:
    """Delete decision records older than the given age (`serve` also does it every hour)."""
    older_than = older_than or settings_from().retention
    before = datetime.now(UTC) - parse_age(older_than)
    rollouts, decisions = open_stores(db)
    from shadowswitch.store.exemplars import ExemplarStore

    exemplars = ExemplarStore(rollouts.engine).prune(before)
    console.print(
        f"deleted {decisions.prune(before)} decisions and {exemplars} exemplars older than {older_than}"
    )
