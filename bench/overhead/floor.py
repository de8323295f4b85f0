"""The floor for a LiteLLM-based proxy: a bare FastAPI app whose one route calls `litellm.acompletion`.

No policies, records, metrics or headers. LiteLLM is set up as shadowswitch sets it up (one
OpenAI client per upstream, the model priced in its cost map, no streaming logging, no retries),
so that what shadowswitch adds over this is its own request path, not a LiteLLM setting. The
relay is the plain one: a JSON body, or one SSE event per chunk.
Run as `python -m bench.overhead.floor --port P --upstream http://127.0.0.1:U/v1`.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import AsyncIterator
from typing import Any

import litellm
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from litellm.llms.openai.openai import OpenAIChatCompletion
from openai import AsyncOpenAI

from shadowswitch.engines.generative import UNLISTED_PRICE

MODEL = "openai/bench"


def make_app(upstream_v1: str) -> FastAPI:
    litellm.disable_streaming_logging = True
    litellm.register_model({MODEL: dict(UNLISTED_PRICE)}, add_to_provider_model_sets=False)
    app = FastAPI()
    clients: list[AsyncOpenAI] = []

    def client() -> AsyncOpenAI:
        if not clients:  # made on the server's loop, over LiteLLM's aiohttp transport
            transport: Any = OpenAIChatCompletion._get_async_http_client()
            clients.append(AsyncOpenAI(api_key="bench", base_url=upstream_v1, http_client=transport))
        return clients[0]

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        return {"object": "list", "data": [{"id": "bench", "object": "model"}]}

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> Response:
        body = await request.json()
        body["model"] = MODEL
        answer = await litellm.acompletion(
            **body, api_base=upstream_v1, api_key="bench", client=client(), num_retries=0, max_retries=0
        )
        if not body.get("stream"):
            return JSONResponse(answer.model_dump())

        async def relay() -> AsyncIterator[str]:
            async for chunk in answer:
                yield f"data: {json.dumps(chunk.model_dump(exclude_none=True))}\n\n"
            yield "data: [DONE]\n\n"

        return StreamingResponse(relay(), media_type="text/event-stream")

    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--upstream", required=True, help="the upstream's /v1 URL")
    args = parser.parse_args()
    uvicorn.run(make_app(args.upstream), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
