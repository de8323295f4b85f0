"""A fast OpenAI-compatible upstream with a fixed delay: the floor every proxy is measured against.

aiohttp, pre-built bodies, no validation: it must cost far less than anything in front of it.
Run as `python -m bench.overhead.upstream --port P --delay-ms 20` (a process of its own, so
its CPU time is not charged to the load generator or the proxy).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time

from aiohttp import web

from bench.scaling import heavy

WORDS = ["The", " answer", " is", " forty-two", "."]
USAGE = {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}


def completion(request_id: int, model: str, message: dict[str, object] | None = None) -> dict[str, object]:
    message = message or {"role": "assistant", "content": "".join(WORDS)}
    return {
        "id": f"chatcmpl-bench{request_id}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}],
        "usage": USAGE,
    }


def chunks(request_id: int, model: str, include_usage: bool) -> list[dict[str, object]]:
    base = {"id": f"chatcmpl-bench{request_id}", "object": "chat.completion.chunk", "model": model}
    base["created"] = int(time.time())
    deltas: list[dict[str, object]] = [{"role": "assistant", "content": ""}]
    deltas += [{"content": w} for w in WORDS]
    out = [{**base, "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas]
    out.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    if include_usage:
        out.append({**base, "choices": [], "usage": USAGE})
    return out


def make_app(delay_s: float) -> web.Application:
    counter = iter(range(1, 1 << 62))

    async def chat(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        request_id, model = next(counter), str(body.get("model") or "bench")
        await asyncio.sleep(delay_s)
        if not body.get("stream"):
            call = heavy.answer(body) if model == "heavy-agent" else None  # `bench beside`'s agent
            return web.Response(
                body=json.dumps(completion(request_id, model, call)), content_type="application/json"
            )
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        usage = bool((body.get("stream_options") or {}).get("include_usage"))
        payload = b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in chunks(request_id, model, usage))
        await response.write(payload + b"data: [DONE]\n\n")
        await response.write_eof()
        return response

    async def models(_request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": "bench", "object": "model"}]})

    app = web.Application()
    app.router.add_post("/v1/chat/completions", chat)
    app.router.add_post("/chat/completions", chat)
    app.router.add_get("/v1/models", models)
    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--delay-ms", type=float, default=20.0)
    args = parser.parse_args()
    web.run_app(make_app(args.delay_ms / 1000), host="127.0.0.1", port=args.port, print=None, access_log=None)


if __name__ == "__main__":
    main()
