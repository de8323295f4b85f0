"""`shadowswitch bench bfcl`: the local engine (through the proxy) beside generation, on BFCL.

Order of work: load cases → the proxy with one task type per scorer (and the
default-threshold run) → the two generate baselines in-process → summaries →
results JSON and a table. Systems run one after the other so that their
latencies are not measured while another one loads the CPU.
"""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from bench.bfcl.data import TEST_CATEGORIES, BfclCase, load_cases
from bench.bfcl.outcome import Outcome, score
from bench.bfcl.results import build_results, load_previous, write_results
from bench.bfcl.table import print_tables

FREE, GRAMMAR = "generate/free-json", "generate/grammar"
LOG_EVERY = 25  # cases between progress lines when the output is not a terminal


@dataclass
class BfclConfig:
    """What one `bench bfcl` run measures."""

    categories: list[str] = field(default_factory=lambda: list(TEST_CATEGORIES))
    limit: int | None = 100
    scorers: list[str] = field(default_factory=lambda: ["hybrid", "embedding", "lm"])
    abstain_scorers: list[str] = field(default_factory=lambda: ["hybrid"])
    baselines: bool = True
    proxy: bool = True
    max_new_tokens: int = 128
    out: Path = Path("bench/results/bfcl.json")
    merge: bool = False
    ready_timeout_s: float = 600.0


def progress(console: Console) -> Progress:
    return Progress(
        TextColumn("{task.description:<38}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
    )


@dataclass
class Run:
    """One benchmark run: its cases, the systems measured so far, saved after each system."""

    config: BfclConfig
    cases: list[BfclCase]
    bar: Progress
    systems: dict[str, list[Outcome]] = field(default_factory=dict)
    extras: dict[str, Any] = field(default_factory=dict)

    def measure(self, name: str, run: Callable[[BfclCase], Outcome], warm_up: bool = True) -> None:
        """Run one system over every case (after one uncounted warm-up case), then save."""
        task = self.bar.add_task(name, total=len(self.cases))
        if warm_up and self.cases:
            run(self.cases[0])
        outcomes = []
        for case in self.cases:
            outcomes.append(run(case))
            self.bar.advance(task)
            if not self.bar.console.is_terminal and len(outcomes) % LOG_EVERY == 0:
                # a bar is drawn only on a terminal: a log file gets a line now and then instead
                self.bar.console.log(f"{name}: {len(outcomes)}/{len(self.cases)} cases")
        self.systems[name] = outcomes
        self.save()

    def save(self) -> dict[str, Any]:
        """Write what is measured so far, so a long run interrupted keeps its finished systems."""
        results = build_results(self.config, self.cases, self.systems, self.extras)
        write_results(self.config.out, results)
        return results


def proxy_systems(run: Run) -> None:
    """Every scorer through a real proxy, counting the stub upstream's hits (fallbacks)."""
    from bench.bfcl.proxy import ProxyClient, running_proxy, task_name, write_policies
    from examples.upstreams.stub import StubUpstream

    config = run.config
    runs = [(s, False) for s in config.scorers] + [(s, True) for s in config.abstain_scorers]
    with tempfile.TemporaryDirectory(prefix="ssbench-") as tmp, StubUpstream() as stub:
        workdir = Path(tmp)
        write_policies(workdir / "policies", config.scorers, stub.base_url, config.abstain_scorers)
        with running_proxy(workdir, config.ready_timeout_s) as base:
            client = ProxyClient(base)
            for scorer, default in runs:
                task = task_name(scorer, default)
                label = f"local/{scorer}" + (" (default thresholds)" if default else "")
                hits_before = stub.hits
                run.measure(label, functools.partial(client.run, task=task))
                run.extras.setdefault("stub_upstream_hits", {})[label] = stub.hits - hits_before


def baseline_systems(run: Run) -> None:
    """Free JSON and grammar-constrained generation with the same small LM, in-process."""
    from bench.bfcl.baselines import Generation, load_generator

    generator = load_generator(max_new_tokens=run.config.max_new_tokens)
    generator.warm_up()

    def as_outcome(case: BfclCase, gen: Generation) -> Outcome:
        outcome = score(case, gen.calls, choice_ms=gen.latency_ms, call_ms=gen.latency_ms, path="direct")
        outcome.error = gen.error or outcome.error
        return outcome

    # Grammar first: it is the baseline the targets compare with, and free JSON takes longest.
    run.measure(GRAMMAR, lambda c: as_outcome(c, generator.constrained(c)), warm_up=False)
    run.measure(FREE, lambda c: as_outcome(c, generator.free(c)), warm_up=False)


def run_bfcl(config: BfclConfig, console: Console | None = None) -> dict[str, Any]:
    """Measure every asked-for system on the same cases; write and print the results."""
    console = console or Console(width=None if Console().is_terminal else 150)
    cases = [c for cat in config.categories for c in load_cases(cat, config.limit)]
    console.print(f"[bold]BFCL[/]: {len(cases)} cases from {', '.join(config.categories)}")
    with progress(console) as bar:
        run = Run(config, cases, bar, load_previous(config.out) if config.merge else {})
        if config.proxy and (config.scorers or config.abstain_scorers):
            proxy_systems(run)
        if config.baselines:
            baseline_systems(run)
    results = run.save()
    print_tables(results, console)
    console.print(f"results written to [bold]{config.out}[/]")
    return results
