"""The request body limit, enforced before the body is read: by Content-Length, and while streaming.

Reading the body first and measuring it after would let a chunked upload of any size fill the
memory; this middleware counts bytes as they arrive and stops at the limit.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from shadowswitch.errors import BadRequest, PayloadTooLarge, ShadowswitchError


class BodyLimit:
    """ASGI middleware: a body over `max_bytes` gets 413 in OpenAI's error shape."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            self._check_declared(scope)
        except ShadowswitchError as exc:
            await _reply(send, exc)
            return
        received = 0

        async def limited() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:  # the route's handler turns this into the 413
                    raise self._too_large(f"more than {self.max_bytes} bytes")
            return message

        await self.app(scope, limited, send)

    def _check_declared(self, scope: Scope) -> None:
        headers: list[tuple[bytes, bytes]] = scope.get("headers") or []
        declared = next((v for k, v in headers if k == b"content-length"), None)
        if declared is None:
            return
        if not declared.strip().isdigit():
            raise BadRequest("Content-Length is not a number", param="Content-Length")
        if int(declared) > self.max_bytes:
            raise self._too_large(f"{int(declared)} bytes")

    def _too_large(self, size: str) -> PayloadTooLarge:
        return PayloadTooLarge(
            f"request body is {size}; the limit is {self.max_bytes} (SHADOWSWITCH_MAX_BODY_BYTES)",
            code="request_too_large",
        )


async def _reply(send: Send, exc: ShadowswitchError) -> None:
    body = json.dumps(exc.body()).encode()
    headers: list[Any] = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    headers.append((b"connection", b"close"))  # the rest of the body is never read
    await send({"type": "http.response.start", "status": exc.status_code, "headers": headers})
    await send({"type": "http.response.body", "body": body})
