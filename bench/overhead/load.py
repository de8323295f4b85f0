"""A closed-loop load generator: `concurrency` clients, each sending its next request when the last ends."""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

import aiohttp

MESSAGES = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "What is the answer to life, the universe and everything?"},
]


def request_body(stream: bool) -> bytes:
    body: dict[str, Any] = {"model": "bench", "messages": MESSAGES, "max_tokens": 16, "stream": stream}
    return json.dumps(body).encode()


@dataclass
class Sample:
    latencies_ms: list[float] = field(default_factory=list)
    errors: int = 0
    first_error: str | None = None
    wall_s: float = 0.0

    @property
    def throughput(self) -> float:
        return len(self.latencies_ms) / self.wall_s if self.wall_s else 0.0

    def percentile(self, q: float) -> float | None:
        if not self.latencies_ms:
            return None
        if len(self.latencies_ms) == 1:
            return self.latencies_ms[0]
        return statistics.quantiles(self.latencies_ms, n=100, method="inclusive")[round(q) - 1]


async def _one(
    session: aiohttp.ClientSession, url: str, body: bytes, headers: dict[str, str], sample: Sample
) -> None:
    started = time.perf_counter()
    try:
        async with session.post(url, data=body, headers=headers) as response:
            payload = await response.read()
            if response.status != 200:
                raise RuntimeError(f"HTTP {response.status}: {payload[:300]!r}")
    except (TimeoutError, aiohttp.ClientError, RuntimeError) as exc:
        sample.errors += 1
        sample.first_error = sample.first_error or f"{type(exc).__name__}: {exc}"
        return
    sample.latencies_ms.append((time.perf_counter() - started) * 1000)


async def run_load(url: str, stream: bool, concurrency: int, requests: int, key: str = "bench") -> Sample:
    """`requests` chat completions to `url` (…/v1/chat/completions) from `concurrency` clients."""
    body, sample = request_body(stream), Sample()
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {key}"}
    remaining = iter(range(requests))
    connector = aiohttp.TCPConnector(limit=concurrency)
    timeout = aiohttp.ClientTimeout(total=60)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:

        async def client() -> None:
            for _ in remaining:
                await _one(session, url, body, headers, sample)

        started = time.perf_counter()
        await asyncio.gather(*(client() for _ in range(concurrency)))
        sample.wall_s = time.perf_counter() - started
    return sample
