"""Shared by the commands: consoles, the --db option, settings and stores, ages, redaction."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Annotated, Any

import typer
from rich.console import Console

console = Console()
err = Console(stderr=True)

DbOpt = Annotated[str | None, typer.Option("--db", help="Database URL [env SHADOWSWITCH_DB_URL]")]


def settings_from(**overrides: Any) -> Any:
    from shadowswitch.server.settings import Settings

    return Settings(**{k: v for k, v in overrides.items() if v is not None})


def open_stores(db: str | None) -> tuple[Any, Any]:
    """The stores over a database already at this version's schema; else exit 1 saying what to run."""
    from shadowswitch.rollouts.store.repository import RolloutRepository
    from shadowswitch.store import db as database
    from shadowswitch.store.decisions import DecisionStore

    url = settings_from(db_url=db).db_url
    problem = database.schema_problem(url)
    if problem:
        err.print(f"error: {problem}: run `shadowswitch db upgrade{' --db ' + db if db else ''}` first")
        raise typer.Exit(1)
    engine = database.make_engine(url)
    return RolloutRepository(engine), DecisionStore(engine)


def parse_age(text: str) -> timedelta:
    from shadowswitch.durations import parse_since

    try:
        return parse_since(text)
    except ValueError as exc:
        err.print(f"error: {exc}")
        raise typer.Exit(2) from None


def redact_url(url: str) -> str:
    return re.sub(r"//([^:/@]+):[^@]+@", r"//\1:***@", url)
