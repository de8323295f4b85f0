"""The demo's story, printed as it happens: direct → shadow (until learning certifies a region)
→ canary 25% → 100% → a broken upgrade trips the breaker → the final comparison. Every figure
comes from the runs themselves and from the proxy's own report and audit log."""

from __future__ import annotations

import contextlib
import getpass
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.panel import Panel
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from examples.demo.learned import SHADOW_PASSES, certified, describe, learn_now
from examples.demo.servers import TASK_TYPE, serving, upstream_settings, wait_ready, write_policies
from examples.demo.stages import Summary, drained, rounds, run_tasks, summarise
from examples.travel_agent.task_sets import tasks_in
from examples.travel_agent.tasks import Task


@dataclass
class DemoConfig:
    upstream: str = "simulated"  # simulated | small-lm | any LiteLLM model string
    once: bool = False
    tasks: int = 0  # per stage; 0 = the whole task set
    latency: tuple[float, float] = (1.0, 3.0)
    error_rate: float = 0.03
    concurrency: int = 8
    port: int = 8787  # the proxy's; 0 = any free port
    seed: int = 7
    workdir: Path | None = None  # policies and SQLite; default a new temp dir
    lang: str = "en"  # the language the customers write in: en | zh


@dataclass
class DemoRun:
    """What a run leaves behind, for the caller (and the tests) to check."""

    workdir: Path
    db_url: str
    proxy_url: str = ""
    stages: dict[str, Summary] = field(default_factory=dict)


def pick(tasks: list[Task], count: int) -> list[Task]:
    """`count` tasks spread over the set (all when 0)."""
    if not count or count >= len(tasks):
        return list(tasks)
    return [tasks[i * len(tasks) // count] for i in range(count)]


def flight_tasks(count: int, tasks: list[Task]) -> list[Task]:
    """Tasks that start with a flight search: what the broken upgrade touches (at least 3)."""
    found = [t for t in tasks if t.turns[0].calls and t.turns[0].calls[0].name == "search_flights"]
    return pick(found, max(count, 3) if count else 0)


class Story:
    def __init__(self, config: DemoConfig, console: Console | None = None) -> None:
        self.config = config
        self.console = console or Console()
        self.workdir = config.workdir or Path(tempfile.mkdtemp(prefix="shadowswitch-demo-"))
        self.run = DemoRun(self.workdir, f"sqlite:///{self.workdir / 'shadowswitch.db'}")
        self.task_set = tasks_in(config.lang)
        self.tasks = pick(self.task_set, config.tasks)

    # -- the whole story ----------------------------------------------------------------

    def tell(self) -> DemoRun:
        say = self.console.print
        say(
            Panel.fit(
                "[bold]shadowswitch demo[/bold]: a legacy travel agent (examples/travel_agent, the plain "
                "openai SDK, 13 tools)\nand its generative upstream; shadowswitch moves the agent's decision "
                "calls onto a small local model,\nwatches both paths, and takes them back when the local "
                "path fails.",
                border_style="cyan",
            )
        )
        if self.config.lang == "zh":
            say(f"[bold]customers write in Chinese[/bold], e.g. 「{self.tasks[0].turns[0].user}」")
        with self._upstream() as upstream_url, self._proxy(upstream_url) as proxy:
            self.run.proxy_url = proxy
            if upstream_url:
                self.stage("1. agent → upstream directly", upstream_url, "direct", self.tasks)
            else:
                say("[dim]1. direct: skipped — a provider model is reached through LiteLLM only[/dim]")
            self.set_rollout("shadow", None, "demo: watch the local engine beside the generative path")
            self.stage("2. through shadowswitch, shadow", proxy, "shadow", self.task_set, paced=True)
            self.certify(proxy)
            self.show_report()
            self.set_rollout("canary", 25, "demo: agreement looks good; a quarter of customers local")
            self.stage("3. canary 25%", proxy, "canary25", self.tasks)
            self.set_rollout("canary", 100, "demo: every customer local")
            self.stage("4. canary 100%", proxy, "canary100", self.tasks)
            self.break_it(proxy)
            self.finale()
            self.wait()
        return self.run

    # -- servers -------------------------------------------------------------------------

    @contextlib.contextmanager
    def _upstream(self) -> Iterator[str | None]:
        c = self.config
        if c.upstream not in ("simulated", "small-lm"):
            self.console.print(
                f"upstream: [bold]{c.upstream}[/bold] through LiteLLM (its key from the environment)"
            )
            yield None
            return
        from examples.demo.upstream import Generator, Simulated, create_upstream

        generator: Generator
        if c.upstream == "small-lm":
            from examples.demo.small_lm import SmallLM

            with self.console.status("loading SmolLM2-135M to generate (the upstream)…"):
                generator = SmallLM()
        else:
            generator = Simulated(c.latency, c.error_rate, c.seed)
        with serving(create_upstream(generator)) as url:
            self.console.print(f"upstream: [bold]{generator.banner}[/bold] at {url}/v1")
            yield url

    @contextlib.contextmanager
    def _proxy(self, upstream_url: str | None) -> Iterator[str]:
        from shadowswitch.server.app import create_app
        from shadowswitch.server.settings import Settings

        model = {"simulated": "simulated-large-model", "small-lm": "smollm2-135m-instruct"}.get(
            self.config.upstream, self.config.upstream
        )
        upstream = upstream_settings(model, f"{upstream_url}/v1" if upstream_url else None)
        policies = write_policies(self.workdir / "policies", upstream)
        settings = Settings(db_url=self.run.db_url, policies=policies, port=self.config.port or 8787)
        with serving(create_app(settings), port=self.config.port or None) as url:
            with self.console.status("shadowswitch: loading the embedded models (SmolLM2-135M, MiniLM)…"):
                wait_ready(url)
            self.console.print(f"shadowswitch: [bold]{url}/v1[/bold], policies and SQLite in {self.workdir}")
            yield url

    # -- stages --------------------------------------------------------------------------

    def stage(
        self, title: str, url: str, tag: str, tasks: list[Task], tools: str = "v1", paced: bool = False
    ) -> Summary:
        """The tasks through `url`; `paced`: in rounds, each once the shadow runs before it have
        ended, so that every step makes its pair however busy the machine (learning's stages)."""
        self.console.rule(f"[bold]{title}")
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=self.console, transient=True) as progress:
            bar = progress.add_task(f"{len(tasks)} tasks", total=len(tasks))
            ok = 0

            def done(result: Any) -> None:
                nonlocal ok
                ok += result.success
                progress.update(bar, advance=1, description=f"{len(tasks)} tasks, {ok} succeeded")

            results = []
            for part in rounds(tasks) if paced else [tasks]:
                results += run_tasks(
                    url,
                    part,
                    tag=tag,
                    tools_version=tools,
                    concurrency=self.config.concurrency,
                    on_done=done,
                    lang=self.config.lang,
                )
                if paced:
                    drained(url)
        summary = summarise(results)
        self.run.stages[title] = summary
        self.console.print(summary_table([(title, summary)]))
        failed = [f"{r.task_id}{' (' + r.error + ')' if r.error else ''}" for r in results if not r.success]
        if failed:
            self.console.print(f"[dim]failed: {', '.join(failed)}[/dim]")
        return summary

    def certify(self, proxy: str) -> None:
        """Learn from the shadow pairs until a region is certified (another pass over the task set
        each time it is not): canary serves only inside it."""
        for attempt in range(1, SHADOW_PASSES + 1):
            self.console.print(f"\n[green]$ shadowswitch learn {TASK_TYPE}[/green]")
            result = learn_now(self.run.db_url, self.workdir / "policies")
            self.console.print(describe(result))
            if certified(result) or attempt == SHADOW_PASSES:
                time.sleep(1.5)  # every server loads the new state and its certificate within a second
                return
            again = f"2.{attempt}. shadow again, for more pairs"
            self.stage(again, proxy, f"shadow{attempt}", self.task_set, paced=True)

    def set_rollout(self, mode: str, percent: float | None, reason: str) -> None:
        from shadowswitch.rollouts.store.repository import RolloutRepository
        from shadowswitch.store import db as database

        RolloutRepository(database.make_engine(self.run.db_url)).set(
            TASK_TYPE, actor=f"cli:{getpass.getuser()}", mode=mode, percent=percent, reason=reason
        )
        flags = f"--mode {mode}" + (f" --percent {percent:g}" if percent is not None else "")
        self.console.print(
            f'\n[green]$ shadowswitch rollout set {TASK_TYPE} {flags} --reason "{reason}"[/green]'
        )
        time.sleep(1.0)  # every server sees a change within a second

    def show_report(self) -> None:
        from shadowswitch.cli.reports import report_table, verdict_line

        report = self.get("/v1/shadowswitch/report")
        for entry in report["task_types"]:
            if entry["task_type"] == TASK_TYPE:
                self.console.print(report_table(entry))
                self.console.print(verdict_line(entry))

    def break_it(self, proxy: str) -> None:
        say = self.console.print
        self.console.rule("[bold]5. a broken upgrade")
        say(
            "The agent's v2 moves flight search to a backend that takes IATA airport codes. The tool's "
            "description says so;\nits schema cannot. The local engine only copies values it finds in the "
            "conversation (it never invents one),\nso it sends city names, the tool answers with an error, "
            "and the breaker counts the failures."
        )
        picked = flight_tasks(self.config.tasks, self.task_set)
        self.stage("5. agent v2 (broken flight search)", proxy, "v2", picked, tools="v2")
        rest = [task for task in flight_tasks(0, self.task_set) if task not in picked]
        if self._breaker()["state"] != "open" and rest:
            # a short run on a busy machine may serve too few flight searches locally for three
            # failures in a row: the broken agent goes on with its other flight tasks
            self.stage("5b. agent v2, its other flight tasks", proxy, "v2b", rest, tools="v2")
        breaker = self._breaker()
        colour = "red" if breaker["state"] == "open" else "yellow"
        say(
            f"breaker: [{colour}]{breaker['state']}[/{colour}] — {TASK_TYPE} is served "
            f"{'generatively again' if breaker['state'] == 'open' else 'as before'}"
        )
        for event in self.get(f"/v1/shadowswitch/audit?task={TASK_TYPE}"):
            if event["actor"] == "breaker":
                say(
                    f"[bold]audit[/bold] {event['at'][:19]} {event['actor']}: {event['kind']} — "
                    f"{event['reason']} (decisions {', '.join(d[:8] for d in event['decision_ids'])})"
                )
                break
        else:
            say("[yellow]the breaker did not trip in this run[/yellow]")
            if self.config.lang == "zh":  # the local path hands most Chinese steps back
                say("[dim]in Chinese the local engine serves too few steps for that (docs/chinese.md)[/dim]")

    def _breaker(self) -> dict[str, Any]:
        breaker: dict[str, Any] = self.get(f"/v1/shadowswitch/rollouts/{TASK_TYPE}")["breaker"]
        return breaker

    def finale(self) -> None:
        say = self.console.print
        self.console.rule("[bold]the comparison")
        say(summary_table(list(self.run.stages.items())))
        stages = self.run.stages
        before = stages.get("1. agent → upstream directly") or stages.get("2. through shadowswitch, shadow")
        after = stages.get("4. canary 100%")
        if before and after and after.p50_s:
            say(
                f"task latency p50 {before.p50_s:.2f} s → {after.p50_s:.2f} s "
                f"([bold]{before.p50_s / after.p50_s:.1f}× faster[/bold]); p95 {before.p95_s:.2f} s → "
                f"{after.p95_s:.2f} s; success {before.success:.0%} → {after.success:.0%}"
            )
        self.show_report()
        say(
            f"dashboard: [bold]{self.run.proxy_url}/dashboard/{TASK_TYPE}[/bold]   report: "
            f"shadowswitch report --db {self.run.db_url}"
        )

    def wait(self) -> None:
        if self.config.once:
            return
        self.console.print("[dim]the proxy stays up for you to explore; Ctrl-C stops it[/dim]")
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)

    def get(self, path: str) -> Any:
        return httpx.get(f"{self.run.proxy_url}{path}", timeout=30).json()


def summary_table(rows: list[tuple[str, Summary]]) -> Table:
    table = Table(
        "stage",
        "tasks",
        "success",
        "p50 s",
        "p95 s",
        "steps: local / generative / fallback",
        "parse failures",
    )
    for title, s in rows:
        served = " / ".join(str(s.paths.get(p, 0)) for p in ("local", "generative", "fallback"))
        if "direct" in s.paths:
            served = f"{s.paths['direct']} direct"
        table.add_row(
            title,
            str(s.tasks),
            f"{s.success:.0%}",
            f"{s.p50_s:.2f}",
            f"{s.p95_s:.2f}",
            served,
            f"{s.parse_failures} of {s.steps} steps",
        )
    return table
