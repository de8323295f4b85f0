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


@bench_app.command("zh")
def zh(
    limit: Annotated[int, typer.Option(help="Cases of the Chinese dev set (0 = all)")] = 0,
    out: Annotated[Path, typer.Option(help="Results JSON")] = Path("bench/results/zh.json"),
) -> None:
    """The engine in Chinese beside English on the same BFCL dev cases (research/zh/dev.jsonl)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from research.zh.bench import run_zh

    summary = run_zh(out, limit or None)["summary"]
    for name, figures in summary.items():
        typer.echo(f"{name}: {figures}")


if __name__ == "__main__":
    bench_app()
