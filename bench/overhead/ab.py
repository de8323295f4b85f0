"""Two checkouts' pass-through side by side: server CPU per request, streamed and not.

    git archive main | tar -x -C /tmp/base
    python -m bench.overhead.ab --base /tmp/base --rounds 3
    python -m bench.overhead.ab --floor --rounds 5     # this checkout against the floor

One upstream (20 ms, a process of its own); then, round after round, `shadowswitch serve
--no-models` from each checkout in turn (this one, and --base), each loaded streamed and not.
Per checkout: the median over rounds of the server's CPU ms per request (its process tree, from
/proc), of its req/s and of its p50 latency (what --concurrency 1 is about). Alternating rounds
spreads a busy machine's noise over both alike; the load average is printed with the figures,
for they mean little without it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import tempfile
from collections.abc import Iterator
from pathlib import Path

from bench.bfcl.proxy import free_port
from bench.overhead import targets
from bench.overhead.load import run_load
from bench.overhead.processes import Server, cpu_seconds, upstream_started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base", type=Path, help="the checkout to compare with")
    parser.add_argument("--floor", action="store_true", help="compare with the floor (floor.py) instead")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--requests", type=int, default=400, help="per mode and round")
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    if args.base is None and not args.floor:
        parser.error("give --base or --floor")
    checkouts = {"floor" if args.floor else "base": None if args.floor else args.base.resolve()}
    checkouts["this"] = targets.ROOT
    cpu: dict[str, list[float]] = {}
    rate: dict[str, list[float]] = {}
    p50: dict[str, list[float]] = {}
    print(f"load average before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="ss-ab-") as tmp:
        workdir = Path(tmp)
        with upstream_started(workdir, targets.bench_env()) as upstream:
            for _round in range(args.rounds):
                for name, source in checkouts.items():
                    port = free_port()
                    with _server(workdir, upstream, port, source) as server:
                        url = f"http://127.0.0.1:{port}/v1/chat/completions"
                        for stream in (False, True):
                            asyncio.run(run_load(url, stream, args.concurrency, 50))  # warm-up
                            before = cpu_seconds(server.pid)
                            sample = asyncio.run(run_load(url, stream, args.concurrency, args.requests))
                            used = cpu_seconds(server.pid) - before
                            key = f"{name} {'stream' if stream else 'json'}"
                            if sample.errors:
                                raise RuntimeError(f"{key}: {sample.errors} errors ({sample.first_error})")
                            cpu.setdefault(key, []).append(used * 1000 / args.requests)
                            rate.setdefault(key, []).append(sample.throughput)
                            p50.setdefault(key, []).append(sample.percentile(50) or 0.0)
    print(f"load average after: {os.getloadavg()}")
    for key in sorted(cpu):
        print(
            f"{key:12s} CPU ms/request median {statistics.median(cpu[key]):6.2f} "
            f"{[round(x, 2) for x in cpu[key]]}  req/s median {statistics.median(rate[key]):6.1f}  "
            f"p50 ms median {statistics.median(p50[key]):6.2f} {[round(x, 1) for x in p50[key]]}"
        )


@contextlib.contextmanager
def _server(workdir: Path, upstream_v1: str, port: int, source: Path | None) -> Iterator[Server]:
    """shadowswitch from `source`, or the floor (None)."""
    if source is None:
        with targets.floor(workdir, upstream_v1, port) as server:
            yield server
        return
    with targets.shadowswitch(workdir, upstream_v1, port, 1, source) as (server, _):
        yield server


if __name__ == "__main__":
    main()
