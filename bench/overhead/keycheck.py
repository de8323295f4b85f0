"""What checking an agent key costs per request, in the process, without the HTTP around it.

`bench overhead --keys` measures the same end to end, where a shared machine's noise is larger
than the check itself; this times the check alone: `Gate.agent` then `Gate.admit`, as the chat
route runs them, with no keys, with a key, and with a rate-limited key (its count in SQLite).

    python -m bench.overhead.keycheck [--requests N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from shadowswitch.access.gate import Gate
from shadowswitch.access.store import KeyStore, UsageStore
from shadowswitch.store import db


async def _time(gate: Gate, headers: dict[str, str], n: int) -> list[float]:
    times = []
    for _ in range(n):
        started = time.perf_counter()
        caller = await gate.agent(headers)
        await gate.admit(caller)
        times.append((time.perf_counter() - started) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ss-keycheck-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'keys.db'}"
        db.upgrade(url)
        engine = db.make_engine(url)
        keys, usage = KeyStore(engine), UsageStore(engine)
        cases: dict[str, dict[str, str]] = {"no keys": {"authorization": "Bearer unused"}}
        open_gate = Gate(keys, usage, ())
        results = {"no keys": asyncio.run(_time(open_gate, cases["no keys"], args.requests))}
        plain, _ = keys.create("plain", "bench")
        limited, _ = keys.create("limited", "bench", rpm=10**9)
        for name, key in (("a key", plain), ("a key with rpm", limited)):
            gate = Gate(keys, usage, ())
            results[name] = asyncio.run(_time(gate, {"authorization": f"Bearer {key}"}, args.requests))
        engine.dispose()
    print(f"load average {os.getloadavg()}; {args.requests} checks each")
    for name, times in results.items():
        cuts = statistics.quantiles(times, n=100)
        print(f"{name:16s} p50 {statistics.median(times) * 1000:8.1f} µs   p99 {cuts[98] * 1000:8.1f} µs")


if __name__ == "__main__":
    main()
