"""`shadowswitch bench ...` commands (mounted by shadowswitch.cli as the `bench` group)."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Annotated

import typer

from research.bfcl.data import CATEGORIES, TEST_CATEGORIES

bench_app = typer.Typer(help="Benchmarks; results go to bench/results/*.json.", no_args_is_help=True)

# hybrid first: it meets each case's tools with a cold embedding cache, as a new agent would;
# embedding, after it, finds them cached (as an agent sending the same tools every step would).
SCORERS = ("hybrid", "embedding", "lm")


@bench_app.callback()
def bench() -> None:
    """Benchmarks; results go to bench/results/*.json."""


def split(value: str, allowed: tuple[str, ...], what: str) -> list[str]:
    """A comma-separated option → list, each item checked; "" or "none" → []."""
    items = [v.strip() for v in value.split(",") if v.strip() and v.strip() != "none"]
    unknown = [v for v in items if v not in allowed]
    if unknown:
        raise typer.BadParameter(f"unknown {what} {unknown}; choose from {', '.join(allowed)}")
    return items


@bench_app.command("bfcl")
def bfcl(
    limit: Annotated[int, typer.Option(help="Cases per category (even stride; 0 = all)")] = 100,
    categories: Annotated[
        str, typer.Option(help=f"Comma-separated BFCL files: {', '.join(CATEGORIES)}")
    ] = ",".join(TEST_CATEGORIES),
    scorers: Annotated[
        str, typer.Option(help="Local-engine scorers, thresholds 0 (always local)")
    ] = ",".join(SCORERS),
    abstain_scorers: Annotated[
        str, typer.Option(help="Scorers also run with the default thresholds, to measure abstain rate")
    ] = "hybrid",
    skip_baselines: Annotated[bool, typer.Option(help="Do not run free-JSON and grammar generation")] = False,
    direct: Annotated[bool, typer.Option(help="Baselines only, in-process; no proxy is started")] = False,
    max_new_tokens: Annotated[int, typer.Option(help="Generation limit of the baselines")] = 128,
    out: Annotated[Path, typer.Option(help="Results JSON")] = Path("bench/results/bfcl.json"),
    merge: Annotated[
        bool, typer.Option(help="Keep systems from an existing --out that this run does not measure")
    ] = False,
) -> None:
    """Local choice vs generation on BFCL: accuracy (BFCL's AST rule), validity, latency.

    The local engine is measured through a real `shadowswitch serve` (started
    here, upstream a local stub) with the openai SDK; the baselines run the
    same SmolLM2-135M in-process, free JSON and xgrammar-constrained.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    # A stopped run (kill, CI timeout) unwinds like Ctrl-C, so the proxy it started stops too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    from research.bfcl.runner import BfclConfig, run_bfcl

    config = BfclConfig(
        categories=split(categories, CATEGORIES, "category"),
        limit=limit or None,
        scorers=split(scorers, SCORERS, "scorer"),
        abstain_scorers=split(abstain_scorers, SCORERS, "scorer"),
        baselines=not skip_baselines,
        proxy=not direct,
        max_new_tokens=max_new_tokens,
        out=out,
        merge=merge,
    )
    run_bfcl(config)


@bench_app.command("e2e")
def e2e(
    quick: Annotated[
        bool, typer.Option("--quick", help="8 tasks, simulated upstream only (under 2 min)")
    ] = False,
    upstreams: Annotated[
        str, typer.Option(help="Comma-separated: simulated, small-lm")
    ] = "simulated,small-lm",
    conditions: Annotated[
        str, typer.Option(help="Comma-separated: direct, off, shadow, local")
    ] = "direct,off,shadow,local",
    tasks: Annotated[int, typer.Option(help="Tasks per condition, simulated upstream (0 = all 45)")] = 0,
    small_lm_tasks: Annotated[int, typer.Option(help="Tasks per condition with SmolLM2 generating")] = 8,
    latency: Annotated[str, typer.Option(help="Simulated upstream seconds per call, low-high")] = "1-3",
    error_rate: Annotated[float, typer.Option(help="Simulated malformed calls", min=0, max=1)] = 0.03,
    concurrency: Annotated[int, typer.Option(help="Tasks at once (small-lm: always 1)", min=1)] = 4,
    out: Annotated[Path, typer.Option(help="Results JSON")] = Path("bench/results/e2e.json"),
) -> None:
    """The demo's travel agent end to end: task success and task latency p50/p95, direct, through
    the proxy at 0% (off), in shadow, and at 100% local; with the simulated upstream and SmolLM2."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    from examples.demo.cli import parse_latency
    from research.e2e.runner import CONDITIONS, UPSTREAMS, E2eConfig, run_e2e

    config = E2eConfig(
        upstreams=["simulated"] if quick else split(upstreams, UPSTREAMS, "upstream"),
        conditions=split(conditions, CONDITIONS, "condition"),
        tasks=8 if quick and not tasks else tasks or 45,
        small_lm_tasks=small_lm_tasks,
        latency=parse_latency(latency),
        error_rate=error_rate,
        concurrency=concurrency,
        out=out,
        extra={"quick": quick},
    )
    run_e2e(config)


if __name__ == "__main__":
    bench_app()
