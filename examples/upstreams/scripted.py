"""A small scripted OpenAI-compatible upstream, for the demo and the tests: a real HTTP server.

It stands in for the big generative model. What it answers is decided by the request:
- `model` containing `error-NNN` answers HTTP NNN; `garbage` answers a body that is not JSON;
  `slow-S` waits S seconds first (also `--delay`, for every request); `drip` streams a word
  every 0.2 s.
- with `tools` (and `tool_choice` not "none"): a tool call to the forced tool, else to the tool
  whose name or description shares most words with the last user message; arguments are filled
  with a value of the right type for every required parameter.
- `response_format` json_object / json_schema: a JSON object that fits.
- otherwise: `echo: <last user message>`.
`GET /requests` lists the bodies received (tests check what was forwarded).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse


def create_upstream(delay_s: float = 0.0) -> FastAPI:
    app = FastAPI(title="scripted upstream")
    seen: list[dict[str, Any]] = []

    @app.get("/requests")
    async def requests_seen() -> list[dict[str, Any]]:
        return seen

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        return {"object": "list", "data": [{"id": "scripted", "object": "model"}]}

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> Response:
        body = await request.json()
        seen.append({"body": body, "headers": dict(request.headers)})
        model = str(body.get("model", ""))
        slow = re.search(r"slow-([\d.]+)", model)
        await asyncio.sleep(float(slow.group(1)) if slow else delay_s)
        failure = re.search(r"error-(\d{3})", model)
        if failure:
            status = int(failure.group(1))
            error = {"message": f"scripted failure {status}", "type": "scripted", "code": status}
            return JSONResponse({"error": error}, status_code=status)
        if "garbage" in model:
            return PlainTextResponse("<html>this is not JSON", status_code=200)
        message = answer(body)
        if body.get("stream"):
            return StreamingResponse(_sse(body, message), media_type="text/event-stream")
        return JSONResponse(_completion(body, message))

    return app


def answer(body: dict[str, Any]) -> dict[str, Any]:
    legacy = not body.get("tools") and bool(body.get("functions"))
    tools = [{"function": f} for f in body.get("functions") or []] if legacy else body.get("tools") or []
    choice = body.get("function_call") if legacy else body.get("tool_choice")
    if tools and choice != "none":
        tool = _pick_tool(tools, choice, _last_user(body))
        arguments = {k: _value(s) for k, s in _required(tool).items()}
        function = {"name": tool["name"], "arguments": json.dumps(arguments)}
        if legacy:
            return {"role": "assistant", "content": None, "function_call": function}
        call = {"id": f"call_{uuid.uuid4().hex[:12]}", "type": "function", "function": function}
        return {"role": "assistant", "content": None, "tool_calls": [call]}
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        schema = (fmt.get("json_schema") or {}).get("schema") or {}
        return {"role": "assistant", "content": json.dumps(_value(schema))}
    if fmt.get("type") == "json_object":
        return {"role": "assistant", "content": json.dumps({"answer": _last_user(body)})}
    return {"role": "assistant", "content": f"echo: {_last_user(body)}"}


def _last_user(body: dict[str, Any]) -> str:
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "user":
            content = message.get("content")
            return content if isinstance(content, str) else json.dumps(content)
    return ""


def _pick_tool(tools: list[dict[str, Any]], choice: Any, text: str) -> dict[str, Any]:
    functions = [t["function"] for t in tools]
    if isinstance(choice, dict):
        forced = choice.get("function", {}).get("name") or choice.get("name")
        return next((f for f in functions if f["name"] == forced), functions[0])
    words = set(re.findall(r"[a-z]+", text.lower()))

    def overlap(f: dict[str, Any]) -> int:
        about = f"{f['name'].replace('_', ' ')} {f.get('description', '')}".lower()
        return len(words & set(re.findall(r"[a-z]+", about)))

    return max(functions, key=overlap)


def _required(tool: dict[str, Any]) -> dict[str, Any]:
    return _value_map(tool.get("parameters"))


def _value_map(schema: Any) -> dict[str, Any]:
    """The required properties' schemas; whatever a fuzzed schema holds, never a crash."""
    schema = schema if isinstance(schema, dict) else {}
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    return {k: props.get(k, {}) for k in required if isinstance(k, str)}


def _value(schema: Any) -> Any:
    schema = schema if isinstance(schema, dict) else {}
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    kind = schema.get("type", "string")
    if kind == "object":
        return {k: _value(s) for k, s in _value_map(schema).items()}
    return {"integer": 1, "number": 1.0, "boolean": True, "array": [], "null": None}.get(
        kind if isinstance(kind, str) else "string", "x"
    )


def _completion(body: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
    reason = (
        "tool_calls"
        if message.get("tool_calls")
        else "function_call"
        if message.get("function_call")
        else "stop"
    )
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "scripted"),
        "choices": [{"index": 0, "message": message, "finish_reason": reason}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }


async def _sse(body: dict[str, Any], message: dict[str, Any]) -> Any:
    base = {
        "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": body.get("model", "scripted"),
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return f"data: {json.dumps({**base, 'choices': [choice]})}\n\n"

    yield chunk({"role": "assistant", "content": ""})
    for i, call in enumerate(message.get("tool_calls") or []):
        head = {**call, "index": i, "function": {"name": call["function"]["name"], "arguments": ""}}
        yield chunk({"tool_calls": [head]})
        arguments = call["function"]["arguments"]
        for start in range(0, len(arguments), 8):
            piece = {"index": i, "function": {"arguments": arguments[start : start + 8]}}
            yield chunk({"tool_calls": [piece]})
    if message.get("function_call"):
        call = message["function_call"]
        yield chunk({"function_call": {"name": call["name"], "arguments": ""}})
        yield chunk({"function_call": {"arguments": call["arguments"]}})
    for word in re.findall(r"\S+\s*", message.get("content") or ""):
        yield chunk({"content": word})
        await asyncio.sleep(0.2 if "drip" in str(body.get("model")) else 0)
    yield chunk({}, _completion(body, message)["choices"][0]["finish_reason"])
    if (body.get("stream_options") or {}).get("include_usage"):
        usage = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
        yield f"data: {json.dumps({**base, 'choices': [], 'usage': usage})}\n\n"
    yield "data: [DONE]\n\n"


def main() -> None:
    """`python -m examples.upstreams.scripted --port 8000`: run the scripted upstream."""
    import argparse

    import uvicorn

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--delay", type=float, default=0.0, help="seconds to wait per request")
    args = parser.parse_args()
    uvicorn.run(create_upstream(args.delay), host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
