"""Profile the pass-through path: py-spy records a `shadowswitch serve --no-models` under load.

    python -m bench.overhead.profile --py-spy PATH/TO/py-spy --out docs/overhead-flame.svg

py-spy comes with the `bench` extra (`pip install -e '.[bench]'`); it attaches by pid.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from bench.bfcl.proxy import free_port
from bench.overhead import targets
from bench.overhead.load import run_load
from bench.overhead.processes import Server, upstream_started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--py-spy", default="py-spy")
    parser.add_argument("--out", type=Path, default=Path("docs/overhead-flame.svg"))
    parser.add_argument("--stream", action="store_true")
    parser.add_argument("--floor", action="store_true", help="the floor (bench/overhead/floor.py) instead")
    parser.add_argument("--requests", type=int, default=1500)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--format", default="flamegraph", help="py-spy's format: flamegraph, speedscope, raw")
    parser.add_argument(
        "--gil", action="store_true", help="sample only the thread holding the GIL: CPU, not waits"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ss-profile-") as tmp:
        workdir = Path(tmp)
        with upstream_started(workdir) as upstream:
            port = free_port()
            with _server(args.floor, workdir, upstream, port) as server:
                url = f"http://127.0.0.1:{port}/v1/chat/completions"
                asyncio.run(run_load(url, args.stream, args.concurrency, 100))  # warm-up
                spy = subprocess.Popen(
                    [
                        args.py_spy,
                        "record",
                        "--pid",
                        str(server.pid),
                        "--format",
                        args.format,
                        "--output",
                        str(args.out.resolve()),
                        "--rate",
                        "250",
                        "--nonblocking",
                        *(["--gil"] if args.gil else []),
                    ]
                )
                sample = asyncio.run(run_load(url, args.stream, args.concurrency, args.requests))
                spy.send_signal(2)  # SIGINT: py-spy writes its output and exits
                spy.wait(timeout=60)
    print(f"{sample.throughput:.1f} req/s, {sample.errors} errors; profile in {args.out}")


@contextlib.contextmanager
def _server(floor: bool, workdir: Path, upstream_v1: str, port: int) -> Iterator[Server]:
    if floor:
        with targets.floor(workdir, upstream_v1, port) as server:
            yield server
        return
    with targets.shadowswitch(workdir, upstream_v1, port, 1) as (server, _):
        yield server


if __name__ == "__main__":
    main()
