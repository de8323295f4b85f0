"""Admin tokens with a role: `viewer` reads, `operator` also changes rollouts, ramps, policies, keys."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Literal

Role = Literal["viewer", "operator"]
ROLES: tuple[Role, ...] = ("viewer", "operator")


@dataclass(frozen=True)
class AdminToken:
    name: str
    role: Role
    token: str

    @property
    def actor(self) -> str:
        return f"api:{self.name}"

    def may(self, role: Role) -> bool:
        return ROLES.index(self.role) >= ROLES.index(role)


def parse_admin_tokens(text: str | None) -> tuple[AdminToken, ...]:
    """`name:role:token,...`; a ValueError says which entry is wrong (without the token)."""
    tokens: list[AdminToken] = []
    for number, entry in enumerate((text or "").split(","), start=1):
        if not entry.strip():
            continue
        name, _, rest = entry.strip().partition(":")
        role, _, token = rest.partition(":")
        if not name or role not in ROLES or not token:
            raise ValueError(f"admin token {number}: write name:role:token with role viewer or operator")
        if name in {t.name for t in tokens}:
            raise ValueError(f"admin token {number}: the name {name!r} is used twice")
        tokens.append(AdminToken(name, role, token))  # the role was checked above
    return tuple(tokens)


def match_admin(given: str, tokens: tuple[AdminToken, ...]) -> AdminToken | None:
    """The admin whose token this is, compared in constant time against every one."""
    found = None
    for admin in tokens:
        if hmac.compare_digest(given.encode(), admin.token.encode()):
            found = admin
    return found
