"""/v1/shadowswitch/keys: make (operator; the key is shown once), list (any admin role), revoke."""

from __future__ import annotations

from typing import Annotated

import anyio
from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field

from shadowswitch.api.deps import READER, AdminDep, StateDep
from shadowswitch.api.schemas import parse_json
from shadowswitch.request import validated
from shadowswitch.store.tables import AgentKey as KeyRow

router = APIRouter(prefix="/v1/shadowswitch/keys")
KeyName = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")]


class KeyCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: KeyName
    task_types: list[Annotated[str, Field(min_length=1, max_length=64)]] | None = Field(
        default=None, description="Only these task types (403 on others); null: every one"
    )
    rpm: int | None = Field(default=None, ge=1, description="Requests a minute (429 beyond)")
    budget_usd_per_day: float | None = Field(
        default=None, ge=0, description="Upstream money a UTC day, as the report counts it (429 beyond)"
    )


class KeyOut(BaseModel):
    """An agent key as shown: its name and prefix, never the key."""

    name: str
    prefix: str
    task_types: list[str] | None
    rpm: int | None
    budget_usd_per_day: float | None
    created_at: str
    created_by: str
    revoked_at: str | None
    revoked_by: str | None

    @classmethod
    def of(cls, row: KeyRow) -> KeyOut:
        return cls(
            **row.model_dump(include={"name", "prefix", "task_types", "rpm", "budget_usd_per_day"}),
            created_at=row.created_at.isoformat(),
            created_by=row.created_by,
            revoked_at=row.revoked_at.isoformat() if row.revoked_at else None,
            revoked_by=row.revoked_by,
        )


class KeyCreated(KeyOut):
    key: str = Field(description="The key itself: shown this once, stored only as its sha256")


@router.post("", status_code=201)
async def create_key(request: Request, state: StateDep, actor: AdminDep) -> KeyCreated:
    body = validated(KeyCreate, parse_json(await request.body(), 64 * 1024))
    key, row = await anyio.to_thread.run_sync(
        lambda: state.gate.keys.create(body.name, actor, body.task_types, body.rpm, body.budget_usd_per_day)
    )
    await state.gate.cache.reload()  # this replica at once; the others within the cache's TTL
    return KeyCreated(**KeyOut.of(row).model_dump(), key=key)


@router.get("", dependencies=READER)
async def list_keys(state: StateDep) -> list[KeyOut]:
    return [KeyOut.of(row) for row in await anyio.to_thread.run_sync(state.gate.keys.list)]


@router.delete("/{name}")
async def revoke_key(name: str, state: StateDep, actor: AdminDep) -> KeyOut:
    """Revoked here at once; elsewhere within SHADOWSWITCH_KEY_CACHE_TTL_S (PostgreSQL: at once)."""
    row = await anyio.to_thread.run_sync(state.gate.keys.revoke, name, actor)
    await state.gate.cache.reload()  # this replica at once; the others within the cache's TTL
    return KeyOut.of(row)
