"""An OpenAI-compatible upstream that misbehaves on purpose, over real HTTP (a raw asyncio server).

A raw socket server rather than an ASGI app, so that it can break the protocol the way real
upstreams and proxies do: close a stream in the middle, answer half a body, or never answer.
The request's `model` says how to misbehave (the first match wins):

- `hang`: read the request, never answer (the client's timeout fires)
- `reset`: close the connection without a word
- `status-NNN`: answer HTTP NNN with an OpenAI error body; 429 carries `Retry-After: 7`
- `flaky-N`: answer 503 to the first N requests of a conversation, then a completion
- `cut`: stream two chunks, then close the connection (no finish, no [DONE])
- `badchunk`: stream one chunk, then a `data:` line that is not JSON
- `notjson`: 200 with an HTML page
- `nochoices`: 200 with JSON that is not a completion
- `echo-auth`: 401 whose error message repeats the request's Authorization header
- anything else: a plain completion (streamed when asked)

`hits[model]` counts the requests seen per model (retries show there); a conversation for
`flaky-N` is keyed by its first user message, so tests do not share their counters.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
import uuid
from collections import Counter
from typing import Any

RETRY_AFTER_S = 7


class FaultyUpstream:
    """Serves on 127.0.0.1 (a free port) from its own event loop thread; a context manager."""

    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()
        self.bodies: list[dict[str, Any]] = []
        self.authorizations: list[str] = []  # the Authorization headers received
        self._flaky: Counter[str] = Counter()
        self._open: set[asyncio.Task[Any]] = set()  # connections being answered (or hung)
        self._loop = asyncio.new_event_loop()
        self._server: asyncio.base_events.Server | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> FaultyUpstream:
        self._thread.start()
        started = asyncio.run_coroutine_threadsafe(self._start(), self._loop)
        started.result(timeout=10)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)

    async def _start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in self._open:
            task.cancel()
        await asyncio.gather(*self._open, return_exceptions=True)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._open.add(task)
            task.add_done_callback(self._open.discard)
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            headers = _headers(head)
            body = json.loads(await reader.readexactly(int(headers.get("content-length", "0"))) or b"{}")
            await self._answer(writer, head, headers, body)
        except (asyncio.IncompleteReadError, ConnectionError, json.JSONDecodeError):
            pass
        finally:
            writer.close()

    async def _answer(
        self, writer: asyncio.StreamWriter, head: bytes, headers: dict[str, str], body: dict[str, Any]
    ) -> None:
        if head.startswith(b"GET"):
            return _send(writer, 200, {"object": "list", "data": [{"id": "faulty", "object": "model"}]})
        model = str(body.get("model", ""))
        self.hits[model] += 1
        self.bodies.append(body)
        self.authorizations.append(headers.get("authorization", ""))
        if "hang" in model:
            await asyncio.sleep(3600)
        if "reset" in model:
            return
        status = re.search(r"status-(\d{3})", model)
        if status:
            code = int(status.group(1))
            extra = {"Retry-After": str(RETRY_AFTER_S)} if code == 429 else {}
            return _send(writer, code, _error(f"scripted status {code}"), extra)
        flaky = re.search(r"flaky-(\d+)", model)
        if flaky:
            key = f"{model}:{_first_user(body)}"
            self._flaky[key] += 1
            if self._flaky[key] <= int(flaky.group(1)):
                return _send(writer, 503, _error("scripted: overloaded, try again"))
        if "echo-auth" in model:
            seen = headers.get("authorization", "")
            return _send(writer, 401, _error(f"invalid credentials: {seen}"))
        if "notjson" in model:
            return _send_raw(writer, 200, b"<html>502 bad gateway</html>", "text/html")
        if "nochoices" in model:
            return _send(writer, 200, {"status": "ok", "result": "not a completion"})
        if body.get("stream"):
            return await _stream(writer, model)
        return _send(writer, 200, _completion(model, "fine"))


def _headers(head: bytes) -> dict[str, str]:
    lines = head.decode("latin-1").split("\r\n")[1:]
    pairs = (line.split(":", 1) for line in lines if ":" in line)
    return {name.strip().lower(): value.strip() for name, value in pairs}


def _first_user(body: dict[str, Any]) -> str:
    users = [m for m in body.get("messages") or [] if isinstance(m, dict) and m.get("role") == "user"]
    return json.dumps(users[0].get("content")) if users else ""


def _error(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "scripted_error", "param": None, "code": None}}


def _completion(model: str, text: str) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
    }


def _send(
    writer: asyncio.StreamWriter, status: int, payload: Any, extra: dict[str, str] | None = None
) -> None:
    _send_raw(writer, status, json.dumps(payload).encode(), "application/json", extra)


def _send_raw(
    writer: asyncio.StreamWriter,
    status: int,
    data: bytes,
    content_type: str,
    extra: dict[str, str] | None = None,
) -> None:
    lines = [f"HTTP/1.1 {status} X", f"Content-Type: {content_type}", f"Content-Length: {len(data)}"]
    lines += [f"{k}: {v}" for k, v in (extra or {}).items()]
    lines.append("Connection: close")
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + data)


async def _stream(writer: asyncio.StreamWriter, model: str) -> None:
    """Server-sent events in chunked encoding; `cut` and `badchunk` break off on purpose."""
    head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
    writer.write((head + "Connection: close\r\n\r\n").encode())
    base = {"id": "chatcmpl-faulty", "object": "chat.completion.chunk", "created": 0, "model": model}

    def event(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return f"data: {json.dumps({**base, 'choices': [choice]})}\n\n".encode()

    def chunk(data: bytes) -> None:
        writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")

    chunk(event({"role": "assistant", "content": ""}))
    chunk(event({"content": "half "}))
    await writer.drain()
    if "cut" in model:
        await asyncio.sleep(0.05)
        return  # the caller closes the socket: no terminating chunk, no [DONE]
    if "badchunk" in model:
        chunk(b"data: {this is not json\n\n")
    chunk(event({"content": "answer"}))
    chunk(event({}, "stop"))
    chunk(b"data: [DONE]\n\n")
    writer.write(b"0\r\n\r\n")
    await writer.drain()
