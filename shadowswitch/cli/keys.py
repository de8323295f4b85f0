"""`shadowswitch keys ...`: make, list and revoke agent keys (acts on the database)."""

from __future__ import annotations

import getpass
import json
import re
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from shadowswitch.cli.common import DbOpt, console, err, open_stores

if TYPE_CHECKING:
    from shadowswitch.access.store import KeyStore

keys_app = typer.Typer(
    help="Agent keys: who may call the proxy (acts on the database).", no_args_is_help=True
)
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def _store(db: str | None) -> KeyStore:  # imported late: the CLI starts fast
    from shadowswitch.access.store import KeyStore

    rollouts, _ = open_stores(db)
    return KeyStore(rollouts.engine)


@keys_app.command("create")
def keys_create(
    name: Annotated[str, typer.Argument(help="The agent's name: decisions are recorded under it")],
    task_types: Annotated[
        str | None, typer.Option("--task-types", help="Only these task types, comma-separated")
    ] = None,
    rpm: Annotated[int | None, typer.Option(help="Requests a minute", min=1)] = None,
    budget_usd_per_day: Annotated[
        float | None, typer.Option("--budget-usd-per-day", help="Upstream money a UTC day", min=0)
    ] = None,
    db: DbOpt = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="As JSON: name, key, prefix, task_types, rpm, budget_usd_per_day")
    ] = False,
) -> None:
    """Make a key and print it, once: only its sha256 is kept."""
    from shadowswitch.errors import ShadowswitchError

    if not NAME.match(name):
        err.print("error: a name is letters, digits, '_', '.' or '-' (at most 64)")
        raise typer.Exit(2)
    tasks = [t.strip() for t in task_types.split(",") if t.strip()] if task_types is not None else None
    try:
        key, row = _store(db).create(name, f"cli:{getpass.getuser()}", tasks, rpm, budget_usd_per_day)
    except ShadowswitchError as exc:
        err.print(f"error: {exc.message}")
        raise typer.Exit(1) from None
    if as_json:
        shown = row.model_dump(include={"name", "prefix", "task_types", "rpm", "budget_usd_per_day"})
        print(json.dumps({"name": row.name, "key": key, **shown}, indent=2))
        return
    err.print(f"key {row.name!r} made; it is shown this once, keep it now:")
    print(key)


@keys_app.command("list")
def keys_list(
    db: DbOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="As JSON")] = False,
) -> None:
    """Every key: name, prefix, task types, limits, who made or revoked it."""
    from shadowswitch.api.keys import KeyOut

    rows = [KeyOut.of(r).model_dump() for r in _store(db).list()]
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    if not rows:
        console.print("no keys yet: while there are none, the proxy asks for none (SHADOWSWITCH_AGENT_AUTH)")
        return
    table = Table("name", "prefix", "task types", "rpm", "USD/day", "made", "revoked")
    for r in rows:
        revoked = f"{r['revoked_at'][:19]} by {r['revoked_by']}" if r["revoked_at"] else ""
        table.add_row(
            r["name"],
            r["prefix"] + "…",
            ", ".join(r["task_types"]) if r["task_types"] is not None else "all",
            str(r["rpm"] or "–"),
            f"{r['budget_usd_per_day']:g}" if r["budget_usd_per_day"] is not None else "–",
            f"{r['created_at'][:19]} by {r['created_by']}",
            revoked,
        )
    console.print(table)


@keys_app.command("revoke")
def keys_revoke(name: Annotated[str, typer.Argument(help="The key's name")], db: DbOpt = None) -> None:
    """Revoke a key: every server refuses it within SHADOWSWITCH_KEY_CACHE_TTL_S (2 s), by the clock."""
    from shadowswitch.errors import ShadowswitchError

    try:
        row = _store(db).revoke(name, f"cli:{getpass.getuser()}")
    except ShadowswitchError as exc:
        err.print(f"error: {exc.message}")
        raise typer.Exit(1) from None
    console.print(f"key {row.name!r} revoked")
