"""A tiny OpenAI-compatible upstream for benchmarks: answers every call with plain text, counts hits.

The proxy reaches it only when the local engine abstains or fails (fallback),
so its hit count is the number of fallbacks.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

STUB_TEXT = "(stub upstream: no tool)"


def completion_body(model: str) -> dict[str, Any]:
    """A minimal non-streamed chat completion with no tool call."""
    return {
        "id": f"chatcmpl-stub{time.time_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": STUB_TEXT},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


class StubUpstream:
    """Serves /v1/chat/completions and /v1/models on 127.0.0.1 in a thread."""

    def __init__(self) -> None:
        self.hits = 0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> StubUpstream:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _count(self) -> None:
        with self._lock:
            self.hits += 1

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                stub._count()
                if isinstance(body, dict) and body.get("stream") is True:
                    return self._stream(completion_body(str(body.get("model", "stub"))))
                self._send(completion_body(str(body.get("model", "stub"))))

            def do_GET(self) -> None:
                self._send({"object": "list", "data": [{"id": "stub", "object": "model"}]})

            def _send(self, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, payload: dict[str, Any]) -> None:
                """The same answer as one chunk of server-sent events (the fuzz asks for streams)."""
                choice = payload["choices"][0]
                delta = {"index": 0, "delta": choice["message"], "finish_reason": "stop"}
                chunk = {**payload, "object": "chat.completion.chunk", "choices": [delta]}
                data = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                return

        return Handler
