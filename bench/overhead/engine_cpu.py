"""CPU per pass-through call inside one process: `LiteLLMEngine` and the stream relay's own work.

    python -m bench.overhead.engine_cpu --calls 400 --concurrency 16 [--profile out.prof]

Starts the benchmark's upstream as a process of its own, then times (process CPU, every thread)
`complete()` and `open_stream()` read to the end the way the pipeline relays it (accumulate for
the record, re-serialise each chunk as SSE). No web server: what is left is LiteLLM, the openai
SDK under it and shadowswitch's own engine code, the part this measures, on the event loop the
server runs (uvloop). Prints one JSON line.
It measures the checkout it runs from (`ab.py` compares two checkouts' servers).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import sys
import tempfile
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

from bench.bfcl.proxy import free_port
from bench.overhead.processes import started

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

T = TypeVar("T")
MESSAGES = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "What is the answer to life, the universe and everything?"},
]


async def _one(engine: Any, upstream: Any, stream: bool) -> None:
    from shadowswitch.answers import wire

    request: dict[str, Any] = {"model": "bench", "messages": MESSAGES, "max_tokens": 16, "stream": stream}
    if not stream:
        body = await engine.complete(request, upstream)
        json.dumps(body)  # what the response costs to send
        return
    joined = wire.MessageAccumulator()
    async for chunk in await engine.open_stream(request, upstream):
        joined.add(chunk)
        wire.sse(chunk)
    joined.message()


async def _measure(
    engine: Any, upstream: Any, stream: bool, calls: int, concurrency: int
) -> dict[str, float]:
    todo = iter(range(calls))

    async def client() -> None:
        for _ in todo:
            await _one(engine, upstream, stream)

    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*(client() for _ in range(concurrency)))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {"cpu_ms_per_call": round(cpu * 1000 / calls, 3), "calls_per_s": round(calls / wall, 1)}


async def _run(api_base: str, calls: int, concurrency: int, profile: Path | None) -> dict[str, Any]:
    from shadowswitch.engines.generative import LiteLLMEngine
    from shadowswitch.policy.models import Upstream

    engine = LiteLLMEngine(retries=0)
    await engine.warm_up()
    upstream = Upstream(model="openai/bench", api_base=api_base, timeout_s=30)
    for stream in (False, True):  # the first calls build clients and fill caches
        await _measure(engine, upstream, stream, 50, concurrency)
    profiler = cProfile.Profile() if profile else None
    if profiler:
        profiler.enable()
    result = {
        "json": await _measure(engine, upstream, False, calls, concurrency),
        "stream": await _measure(engine, upstream, True, calls, concurrency),
    }
    if profiler:
        profiler.disable()
        profiler.dump_stats(str(profile))
    return result


def _on_server_loop(work: Coroutine[Any, Any, T]) -> T:
    """Run on the event loop uvicorn picks (uvloop when installed), as the server does."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(work)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(work)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--upstream", help="an upstream's /v1 URL; default: start one")
    parser.add_argument("--profile", type=Path, help="write cProfile stats here")
    args = parser.parse_args()
    if args.upstream:
        result = _on_server_loop(_run(args.upstream, args.calls, args.concurrency, args.profile))
    else:
        port = free_port()
        cmd = [sys.executable, "-m", "bench.overhead.upstream", "--port", str(port), "--delay-ms", "5"]
        log = Path(tempfile.mkdtemp(prefix="ss-engine-cpu-")) / "upstream.log"
        env = os.environ | {"PYTHONPATH": str(Path(__file__).resolve().parents[2])}
        with started(cmd, f"http://127.0.0.1:{port}/v1/models", log, env):
            url = f"http://127.0.0.1:{port}/v1"
            result = _on_server_loop(_run(url, args.calls, args.concurrency, args.profile))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
