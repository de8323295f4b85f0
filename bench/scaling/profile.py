"""Where a decision's time goes: the engine in this process, the scaling requests (8 tools) in
batches of 8, as its worker thread would batch them; no server, no HTTP.

    python -m bench.scaling.profile [--requests 64] [--profile out.prof]

Prints decisions a second three ways — tools never seen (every prompt prefix computed), the same
requests again (prefixes cached, as for an agent that sends the same tools every step), and the
same with `scorer: embedding` (no language-model pass) — then, with --profile, the cProfile of
the first pass, by cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=64)
    parser.add_argument("--profile", type=Path, help="write the first pass's cProfile stats here")
    args = parser.parse_args()

    from bench.scaling.run import MAX_CANDIDATES, TASK
    from bench.scaling.tools import requests_with_tools
    from shadowswitch.engines.local import configure_torch, create_engine, freeze_heap
    from shadowswitch.engines.local.decider import Job
    from shadowswitch.policy.models import Policy
    from shadowswitch.request import ChatView

    configure_torch()
    engine = create_engine("embedded")
    freeze_heap()
    engine_config = {"max_candidates": MAX_CANDIDATES, "min_confidence": 0, "min_margin": 0}
    base = {"task_type": TASK, "match": {"model": TASK}, "upstream": {"model": "openai/bench"}}
    hybrid = Policy.model_validate({**base, "engine": engine_config})
    embedding = Policy.model_validate({**base, "engine": {**engine_config, "scorer": "embedding"}})
    requests = [ChatView.parse(r.body) for r in requests_with_tools(args.requests, 8, 1)]
    engine._run([Job(ChatView.parse(r.body), hybrid) for r in requests_with_tools(8, 8, 99)])  # warm-up

    def rate(policy: Any, profiler: cProfile.Profile | None = None) -> float:
        started = time.perf_counter()
        if profiler:
            profiler.enable()
        for i in range(0, len(requests), 8):
            engine._run([Job(r, policy) for r in requests[i : i + 8]])
        if profiler:
            profiler.disable()
        return len(requests) / (time.perf_counter() - started)

    profiler = cProfile.Profile() if args.profile else None
    print(f"hybrid, tools never seen: {rate(hybrid, profiler):.1f} decisions/s")
    print(f"hybrid, the same requests again: {rate(hybrid):.1f} decisions/s")
    print(f"embedding, the same requests again: {rate(embedding):.1f} decisions/s")
    if profiler and args.profile:
        profiler.dump_stats(str(args.profile))
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)


if __name__ == "__main__":
    main()
