"""Run the long-request benchmark: the engine in this process (no server: its latency alone),
one decision at a time, requests of each length (requests.py), each part of a decision timed
(timing.py). Results: bench/results/long_requests.json."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import statistics
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.bfcl.results import git_commit, machine_info
from bench.long.requests import Builder, conversation_steps, conversations, first_steps
from bench.long.timing import Parts

MODES = ("first", "steps")
# `kept`: the engine as it runs; `read_again`: without the earlier turns' readings kept across
# steps (arguments/readings.py), every step reading them again: the same requests, side by side.
VARIANTS = ("read_again", "kept")
WARM_UP = 2  # requests before each group's timed ones: the policy's and the tools' texts read once


@dataclass
class LongConfig:
    out: Path
    sizes: tuple[int, ...] = (3000, 6000, 10000, 16000)
    per_size: int = 30
    threads: int | None = None  # torch's intra-op threads (default: the cores, as the proxy)
    modes: tuple[str, ...] = MODES
    variants: tuple[str, ...] = VARIANTS
    extra: dict[str, Any] = field(default_factory=dict)


def _pinned_dtypes() -> dict[str, str]:
    """One dtype per run, from the CPU's flags: the engine's start-up timing probe can pick
    float32 one run and bfloat16 the next on a busy machine, and the figures would not compare."""
    from shadowswitch.engines.local.runtime.models import native_bf16

    dtype = "bfloat16" if native_bf16() else "float32"
    for name in ("SHADOWSWITCH_LM_DTYPE", "SHADOWSWITCH_ENCODER_DTYPE"):
        os.environ.setdefault(name, dtype)
    return {name: os.environ[name] for name in ("SHADOWSWITCH_LM_DTYPE", "SHADOWSWITCH_ENCODER_DTYPE")}


def _policy() -> Any:
    """The shop's learning policy, thresholds 0 (every decision goes on to fill its arguments)
    and a budget no decision reaches (the work is measured, not cut)."""
    from bench.learning_shop import policy
    from shadowswitch.policy.models import Policy

    base = policy("http://127.0.0.1:9")
    engine = {**base["engine"], "min_confidence": 0, "min_margin": 0, "time_budget_ms": 60_000}
    return Policy.model_validate({**base, "engine": engine})


def _forget(decider: Any) -> None:
    """Every cache of the decider and its parts back to empty (the LRUs two levels down): a
    group's figures owe nothing to the one before."""
    from shadowswitch.engines.local.runtime.lru import LRU

    for owner in [decider, *vars(decider).values()]:
        for name, value in list(vars(owner).items()) if hasattr(owner, "__dict__") else []:
            if isinstance(value, LRU):
                setattr(owner, name, LRU(value.size))


def _decision(choice: Any) -> dict[str, Any]:
    return {
        "kind": choice.kind,
        "name": choice.name,
        "arguments": choice.arguments,
        "abstain": (choice.abstain_reason or "").split(":")[0] or None,
    }


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    wall = [r["ms"] for r in rows]
    parts: dict[str, float] = {}
    for row in rows:
        for part, ms in row["parts"].items():
            parts[part] = parts.get(part, 0.0) + ms / len(rows)
    digest = hashlib.sha1(json.dumps([r["decision"] for r in rows], sort_keys=True).encode()).hexdigest()
    return {
        "requests": len(rows),
        "tokens_p50": int(statistics.median(r["tokens"] for r in rows)),
        "tokens_range": [min(r["tokens"] for r in rows), max(r["tokens"] for r in rows)],
        "p50_ms": _pct(wall, 0.5),
        "p99_ms": _pct(wall, 0.99),
        "mean_ms": round(statistics.fmean(wall), 1),
        "cpu_p50_ms": _pct([r["cpu_ms"] for r in rows], 0.5),
        "parts_mean_ms": {k: round(v, 1) for k, v in sorted(parts.items(), key=lambda kv: -kv[1])},
        "outcomes": dict(
            sorted(
                {
                    k: sum(1 for r in rows if (r["decision"]["abstain"] or r["decision"]["kind"]) == k)
                    for k in {r["decision"]["abstain"] or r["decision"]["kind"] for r in rows}
                }.items()
            )
        ),
        "decisions_sha1": digest[:16],
        "slowest": {k: v for k, v in max(rows, key=lambda r: r["ms"]).items() if k != "decision"},
    }


def run_long(config: LongConfig) -> dict[str, Any]:
    from bench.learning_shop import shop_steps
    from shadowswitch.engines.local import configure_torch, create_engine, freeze_heap
    from shadowswitch.request import ChatView

    started = time.monotonic()
    dtypes = _pinned_dtypes()
    stream, test = shop_steps()
    convs = conversations(stream + test)
    threads = configure_torch(config.threads)
    engine = create_engine("embedded")
    freeze_heap()
    decider = engine.engine
    parts = Parts()
    parts.install()
    policy = _policy()
    tokenizer = engine.models.lm_tokenizer

    def count(text: str) -> int:
        return len(tokenizer(text, add_special_tokens=False)["input_ids"])

    def decide(body: dict[str, Any], builder: Builder) -> dict[str, Any]:
        view = ChatView.parse(body)
        parts.take()
        wall, cpu = time.perf_counter(), time.process_time()
        choice = engine.decide_sync(view, policy)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        measured = parts.take()
        measured["rest"] = round(max(0.0, wall * 1000 - sum(measured.values())), 3)
        return {
            "tokens": builder.tokens(body["messages"]),
            "ms": round(wall * 1000, 2),
            "cpu_ms": round(cpu * 1000, 2),
            "parts": measured,
            "decision": _decision(choice),
        }

    from shadowswitch.engines.local.arguments.readings import CACHE, TurnReadings

    groups: list[dict[str, Any]] = []
    n = config.per_size + WARM_UP
    for size, mode, variant in itertools.product(config.sizes, config.modes, config.variants):
        decider.readings = TurnReadings(0 if variant == "read_again" else CACHE)
        # The conversations asked about, then the others as history, each once in turn.
        targets, pool = convs[:n], convs[n:]
        builder = Builder(list(itertools.islice(itertools.cycle(pool), len(pool) * 4)), count)
        if mode == "first":
            bodies = list(first_steps(builder, targets, size, n))
        else:
            bodies = [b for _, b in conversation_steps(builder, targets, size, n)]
        _forget(decider)
        for body in bodies[:WARM_UP]:
            decide(body, builder)
        rows = [decide(body, builder) for body in bodies[WARM_UP:n]]
        summary = {"target_tokens": size, "mode": mode, "variant": variant, **_summary(rows)}
        groups.append(summary)
        print(
            f"{size:>6} {mode:<6} {variant:<10} tokens {summary['tokens_p50']:>6}"
            f"  p50 {summary['p50_ms']:>7} ms  p99 {summary['p99_ms']:>7} ms"
            f"  cpu {summary['cpu_p50_ms']:>7} ms"
            f"  {summary['parts_mean_ms']}",
            flush=True,
        )
    results = {
        "benchmark": "long_requests",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "git_commit": git_commit(),
        "machine": machine_info(),
        "config": {
            "sizes": list(config.sizes),
            "per_size": config.per_size,
            "modes": list(config.modes),
            "variants": list(config.variants),
            "traffic": "the shop agent's conversations (examples/shop), history from other conversations",
            "tokens": "the whole request (messages and the 14 tools' schemas), SmolLM2's tokenizer",
            "policy": "the shop's learning policy (embedding scorer), thresholds 0, no time budget reached",
            "concurrency": 1,
            "torch_threads": threads,
            "dtypes": dtypes,
            **config.extra,
        },
        "groups": groups,
        "duration_s": round(time.monotonic() - started, 1),
    }
    config.out.parent.mkdir(parents=True, exist_ok=True)
    config.out.write_text(json.dumps(results, indent=1) + "\n")
    print(f"wrote {config.out}")
    return results
