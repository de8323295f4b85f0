"""The load: a mix of local, generative, shadow, pass-through and streamed chat completions,
sent with the real `openai` SDK at a fixed concurrency; what each request got back."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

import httpx

LOCAL_TASK, SHADOW_TASK, GENERATIVE_TASK = "load_local", "load_shadow", "load_generative"
# kind → share of the requests: pass-through is the path every request of an agent nobody
# migrated takes, so it gets the biggest share (and its own p99)
MIX = {"local": 0.25, "generative": 0.15, "shadow": 0.15, "pass_through": 0.30, "stream": 0.15}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "search_flights",
            "description": "Search flights between two cities",
            "parameters": {
                "type": "object",
                "properties": {"origin": {"type": "string"}, "destination": {"type": "string"}},
                "required": ["origin", "destination"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "book_hotel",
            "description": "Book a hotel room in a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "nights": {"type": "integer"}},
                "required": ["city", "nights"],
            },
        },
    },
]


def policies() -> list[dict[str, Any]]:
    """Three task types, chosen by header; everything else passes through to the default upstream."""
    never_revert = {"consecutive_failures": 1000, "reprobe_after_s": 0}  # the most a policy allows
    engine = {"scorer": "embedding", "min_confidence": 0, "min_margin": 0, "certify": False}  # always local
    return [
        {
            "task_type": LOCAL_TASK,
            "rollout": {"mode": "canary", "percent": 100, "compare_percent": 0},
            "engine": engine,
            "breaker": never_revert,
        },
        {"task_type": SHADOW_TASK, "rollout": {"mode": "shadow"}, "engine": engine, "breaker": never_revert},
        {"task_type": GENERATIVE_TASK, "rollout": {"mode": "off"}},
    ]


def kinds(n: int, offset: int = 0) -> list[str]:
    """n kinds in a fixed interleaved order with the MIX shares (deterministic, no clumps)."""
    out, credit = [], dict.fromkeys(MIX, 0.0)
    for _ in range(offset + n):
        for kind, share in MIX.items():
            credit[kind] += share
        kind = max(credit, key=lambda k: credit[k])
        credit[kind] -= 1
        out.append(kind)
    return out[offset:]


@dataclass
class Result:
    kind: str
    latency_ms: float
    decision_id: str | None = None
    path: str | None = None
    error: str | None = None


async def send(client: Any, kind: str, i: int) -> Result:
    """One request; an exception of any kind is the request's error, not the run's."""
    task = {"local": LOCAL_TASK, "shadow": SHADOW_TASK, "generative": GENERATIVE_TASK}.get(kind)
    headers = {"X-Shadowswitch-Session": f"load-{i}", **({"X-Shadowswitch-Task": task} if task else {})}
    content = f"book a hotel in Paris for {i % 7 + 1} nights" if task else f"hello number {i}"
    request: dict[str, Any] = {
        "model": "load-step" if task else "gpt-4o-mini",
        "messages": [{"role": "user", "content": content}],
        "extra_headers": headers,
    }
    if task:
        request["tools"] = TOOLS
    started = time.perf_counter()
    try:
        if kind == "stream":
            async with client.chat.completions.with_streaming_response.create(stream=True, **request) as raw:
                text = "".join(
                    [c.choices[0].delta.content or "" async for c in await raw.parse() if c.choices]
                )
                headers_back = raw.headers
            if not text:
                raise ValueError("empty stream")
        else:
            raw = await client.chat.completions.with_raw_response.create(**request)
            raw.parse()
            headers_back = raw.headers
    except Exception as exc:
        return Result(kind, _ms(started), error=f"{type(exc).__name__}: {str(exc)[:200]}")
    decision = headers_back.get("x-shadowswitch-decision-id")
    return Result(kind, _ms(started), decision, headers_back.get("x-shadowswitch-path"))


async def run(base_url: str, n: int, concurrency: int, offset: int = 0) -> list[Result]:
    """n requests through the proxy at `base_url`, `concurrency` in flight at any time."""
    from openai import AsyncOpenAI

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(limits=limits, timeout=120) as http:
        client = AsyncOpenAI(base_url=f"{base_url}/v1", api_key="load", max_retries=0, http_client=http)
        plan = list(enumerate(kinds(n, offset), start=offset))
        return await _pool(plan, concurrency, lambda item: send(client, item[1], item[0]))


async def direct(upstream_url: str, n: int, concurrency: int) -> list[Result]:
    """The pass-through request sent straight to the upstream: the baseline for the proxy's cost."""
    from openai import AsyncOpenAI

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(limits=limits, timeout=120) as http:
        client = AsyncOpenAI(base_url=upstream_url, api_key="load", max_retries=0, http_client=http)
        return await _pool(list(range(n)), concurrency, lambda i: send(client, "pass_through", i))


async def _pool(items: list[Any], concurrency: int, work: Any) -> list[Result]:
    queue: asyncio.Queue[Any] = asyncio.Queue()
    for item in items:
        queue.put_nowait(item)
    results: list[Result] = []

    async def worker() -> None:
        while not queue.empty():
            results.append(await work(queue.get_nowait()))

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return results


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)


def summary(results: list[Result]) -> dict[str, Any]:
    """Counts, errors and latency percentiles, overall and per kind."""

    def figures(rs: list[Result]) -> dict[str, Any]:
        ms = [r.latency_ms for r in rs if r.error is None]
        paths: dict[str, int] = {}
        for r in rs:
            paths[str(r.path)] = paths.get(str(r.path), 0) + 1
        return {
            "requests": len(rs),
            "errors": sum(r.error is not None for r in rs),
            "p50_ms": percentile(ms, 0.50),
            "p90_ms": percentile(ms, 0.90),
            "p99_ms": percentile(ms, 0.99),
            "max_ms": round(max(ms), 2) if ms else None,
            "paths": paths,
        }

    by_kind = {kind: figures([r for r in results if r.kind == kind]) for kind in MIX}
    errors = [r.error for r in results if r.error][:5]
    return {**figures(results), "by_kind": by_kind, "first_errors": errors}
