"""The dashboard's session cookie: the admin's name and an expiry, signed with that admin's token.

The cookie never holds the token. Signing with the token itself needs no other secret, works on
every replica, and a token taken out of SHADOWSWITCH_ADMIN_TOKENS ends its sessions at once.
"""

from __future__ import annotations

import hashlib
import hmac
import time

from shadowswitch.access.roles import AdminToken


def _signature(admin: AdminToken, name: str, expires: int) -> str:
    message = f"shadowswitch-session|{name}|{expires}".encode()
    return hmac.new(admin.token.encode(), message, hashlib.sha256).hexdigest()


def make_session(admin: AdminToken, ttl_s: float, now: float | None = None) -> str:
    expires = int((time.time() if now is None else now) + ttl_s)
    return f"{admin.name}.{expires}.{_signature(admin, admin.name, expires)}"


def read_session(cookie: str, admins: tuple[AdminToken, ...], now: float | None = None) -> AdminToken | None:
    """The admin a valid, unexpired cookie names; None for anything else."""
    parts = cookie.rsplit(".", 2)  # name.expires.signature; a name may hold dots
    if len(parts) != 3 or not parts[1].isdigit():
        return None
    name, expires, signature = parts[0], int(parts[1]), parts[2]
    if expires <= (time.time() if now is None else now):
        return None
    for admin in admins:
        if admin.name == name and hmac.compare_digest(signature, _signature(admin, name, expires)):
            return admin
    return None
