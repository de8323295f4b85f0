"""`shadowswitch bench ...` commands (mounted by shadowswitch.cli as the `bench` group)."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Annotated

import typer

from bench.bfcl.data import CATEGORIES, TEST_CATEGORIES

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
    from bench.bfcl.runner import BfclConfig, run_bfcl

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


def _offline_and_stoppable() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    # A stopped run (kill, CI timeout) unwinds like Ctrl-C, so the servers it started stop too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))


@bench_app.command("overhead")
def overhead(
    quick: Annotated[bool, typer.Option(help="Fewer requests: under two minutes")] = False,
    requests: Annotated[str, typer.Option(help="Requests per cell as CONC=N,... (default by --quick)")] = "",
    workers: Annotated[str, typer.Option(help="shadowswitch worker counts, comma-separated")] = "1,2",
    litellm_proxy: Annotated[
        bool, typer.Option(help="Also measure LiteLLM's proxy (needs the `bench` extra)")
    ] = True,
    delay_ms: Annotated[float, typer.Option(help="The upstream's delay per call")] = 20.0,
    keys: Annotated[
        bool, typer.Option(help="Also one worker with an agent key, and with a rate-limited key")
    ] = False,
    rounds: Annotated[
        int, typer.Option(min=1, help="Each cell's requests in this many turns, the servers alternating")
    ] = 3,
    out: Annotated[Path, typer.Option(help="Results JSON")] = Path("bench/results/overhead.json"),
) -> None:
    """Pass-through overhead against the upstream direct, the floor and LiteLLM's proxy, in one run.

    Added latency p50/p99, throughput and server CPU per request, at concurrency 1 and 32,
    streamed and not.
    """
    _offline_and_stoppable()
    from bench.overhead.run import OverheadConfig, run_overhead

    counts = dict(_pair(item) for item in requests.split(",") if item.strip())
    config = OverheadConfig(
        out=out,
        quick=quick,
        delay_ms=delay_ms,
        requests=counts,
        workers=_ints(workers),
        litellm_proxy=litellm_proxy,
        keys=keys,
        rounds=rounds,
    )
    run_overhead(config)


@bench_app.command("beside")
def beside(
    short: Annotated[int, typer.Option(help="Short requests in each phase, 4 at a time")] = 96,
    steps: Annotated[int, typer.Option(help="The heavy agent's steps, 2 at a time")] = 12,
    out: Annotated[Path, typer.Option(help="Results JSON")] = Path("bench/results/beside.json"),
) -> None:
    """Short requests served locally, alone and beside a heavy agent learning in shadow.

    Their p50/p99 in both, and how long after each heavy step its shadow run was recorded.
    """
    _offline_and_stoppable()
    from bench.scaling.beside import run_beside

    run_beside(out, short, steps)


@bench_app.command("scaling")
def scaling(
    quick: Annotated[bool, typer.Option(help="Fewer requests: under two minutes")] = False,
    tools: Annotated[str, typer.Option(help="Offered tool counts, comma-separated")] = "2,4,8,16,32,64",
    concurrency: Annotated[str, typer.Option(help="Concurrency levels, comma-separated")] = "1,4,16,64",
    per_size: Annotated[int | None, typer.Option(help="Requests per tool count")] = None,
    per_concurrency: Annotated[int | None, typer.Option(help="Requests per concurrency level")] = None,
    workers: Annotated[
        str, typer.Option(help="`serve --workers` counts to compare, comma-separated (memory, req/s)")
    ] = "1",
    time_budget_ms: Annotated[
        int | None, typer.Option(help="The policy's engine.time_budget_ms (default: the policy default)")
    ] = None,
    precision: Annotated[
        str,
        typer.Option(
            help="engine.precision values to compare, comma-separated (float,int8; default: the policy's)"
        ),
    ] = "",
    traffic: Annotated[
        str,
        typer.Option(
            help="bfcl: BFCL live questions, each offered its own tool among distractors; simple: "
            "generated requests, the same 8 tools each time, their values in the text (--tools 8)"
        ),
    ] = "bfcl",
    source: Annotated[
        str,
        typer.Option(
            help="Checkouts to serve, comma-separated, each in turn (before and after a change; "
            "default: this one)"
        ),
    ] = "",
    torch_threads: Annotated[
        str, typer.Option(help="SHADOWSWITCH_TORCH_THREADS values, comma-separated, each in turn")
    ] = "",
    out: Annotated[Path, typer.Option(help="Results JSON")] = Path("bench/results/scaling.json"),
) -> None:
    """The local engine behind a real server, by offered tools and by concurrency.

    Decision latency and throughput, RSS with the models loaded, start-up time to /readyz.
    """
    _offline_and_stoppable()
    from bench.scaling.run import ScalingConfig, run_scaling

    config = ScalingConfig(
        out=out,
        quick=quick,
        tools=_ints(tools),
        concurrencies=_ints(concurrency),
        per_size=per_size,
        per_concurrency=per_concurrency,
        workers=_ints(workers),
        time_budget_ms=time_budget_ms,
        precisions=tuple(split(precision, ("float", "int8"), "precision")) if precision else (),
        traffic=traffic,
        sources=tuple(Path(s).resolve() for s in source.split(",") if s.strip()),
        torch_threads=_ints(torch_threads),
    )
    if traffic not in ("bfcl", "simple") or (traffic == "simple" and set(config.tools) != {8}):
        raise typer.BadParameter("--traffic is bfcl or simple, and simple offers 8 tools (--tools 8)")
    run_scaling(config)


def _ints(value: str) -> tuple[int, ...]:
    try:
        return tuple(int(v) for v in value.split(",") if v.strip())
    except ValueError:
        raise typer.BadParameter(f"expected comma-separated numbers, got {value!r}") from None


def _pair(item: str) -> tuple[int, int]:
    try:
        key, value = item.split("=")
        return int(key), int(value)
    except ValueError:
        raise typer.BadParameter(f"expected CONC=N, got {item!r}") from None


@bench_app.command("long")
def long_requests(
    quick: Annotated[bool, typer.Option(help="Sizes 3k and 6k, 10 requests each (minutes)")] = False,
    sizes: Annotated[str, typer.Option(help="Request tokens, comma-separated")] = "3000,6000,10000,16000",
    per_size: Annotated[int, typer.Option(help="Timed requests per size and traffic kind")] = 30,
    modes: Annotated[str, typer.Option(help="first: every request a new conversation; steps: in order")] = (
        "first,steps"
    ),
    threads: Annotated[int | None, typer.Option(help="torch threads [the cores, at most 8]")] = None,
    out: Annotated[Path, typer.Option(help="Results JSON")] = Path("bench/results/long_requests.json"),
) -> None:
    """Decision latency against request length: the shop agent's requests, its 1,810-word policy
    and JSON tool results, history from earlier conversations; where the time goes."""
    _offline_and_stoppable()
    from bench.long.run import MODES, LongConfig, run_long

    config = LongConfig(
        out=out,
        sizes=(3000, 6000) if quick else _ints(sizes),
        per_size=10 if quick else per_size,
        modes=tuple(split(modes, MODES, "mode")),
        threads=threads,
        extra={"quick": quick},
    )
    run_long(config)


@bench_app.command("load")
def load(
    requests: Annotated[int, typer.Option(help="Measured requests (after the warm-up)")] = 10_000,
    concurrency: Annotated[int, typer.Option(help="Requests in flight at any time")] = 64,
    warmup: Annotated[int, typer.Option(help="Requests before the first memory reading")] = 500,
    baseline: Annotated[int, typer.Option(help="Pass-through requests straight to the upstream")] = 1_000,
    workers: Annotated[int, typer.Option(help="`serve --workers N` (1: the option is not passed)")] = 1,
    models: Annotated[bool, typer.Option(help="Load the embedded models (else no local path)")] = True,
    db: Annotated[str | None, typer.Option(help="Database URL [default: SQLite in a temp dir]")] = None,
    out: Annotated[Path, typer.Option(help="Results JSON")] = Path("bench/results/load.json"),
) -> None:
    """Many concurrent requests of every kind through a real server: errors, records, RSS, p99.

    Local, generative, shadow, pass-through and streamed requests through `shadowswitch serve` to
    a scripted upstream on loopback; each request must be recorded once (rows by decision id).
    """
    _offline_and_stoppable()
    from bench.load.run import LoadConfig, run_load, write

    config = LoadConfig(requests, concurrency, warmup, baseline, workers, models, db, out)
    results = run_load(config)
    write(results, out)
    measured, records = results["measured"], results["records"]
    typer.echo(
        f"{config.requests} requests at concurrency {config.concurrency}: {measured['errors']} errors, "
        f"{results['throughput_rps']} req/s; pass-through p99 {results['pass_through_p99_ms']} ms "
        f"(direct {results['direct_to_upstream']['p99_ms']} ms); rows {records['rows']}, "
        f"missing {records['missing']}, duplicated {records['duplicated']}; "
        f"RSS {results['rss_mb']['after_warmup']} → {results['rss_mb']['after_run']} MiB → {out}"
    )


@bench_app.command("remote")
def remote(
    requests: Annotated[int, typer.Option(help="BFCL live_simple requests, 8 offered tools", min=2)] = 100,
    out: Annotated[Path, typer.Option(help="Results JSON")] = Path("bench/results/remote.json"),
) -> None:
    """The engine over its models in-process and behind serving engines (Infinity, vLLM on the CPU).

    Needs `make serving-env`. The same requests to both, in turn: latency, and how often they
    decide alike.
    """
    _offline_and_stoppable()
    from bench.remote import run_remote

    run_remote(out, requests)


@bench_app.command("cluster")
def cluster(
    requests: Annotated[int, typer.Option(help="Requests per phase")] = 2_000,
    concurrency: Annotated[int, typer.Option(help="Requests in flight at any time")] = 32,
    db: Annotated[
        str, typer.Option(help="PostgreSQL URL; the bench makes and drops a database of its own there")
    ] = "postgresql+psycopg://postgres@127.0.0.1:5432/test",
    out: Annotated[Path, typer.Option(help="Results JSON")] = Path("bench/results/cluster.json"),
) -> None:
    """Two replicas on PostgreSQL behind HAProxy: req/s against one, and a replica SIGKILLed.

    The load benchmark's mixed traffic, in three phases: straight to one replica, through HAProxy
    to both, and through HAProxy while one replica is killed and started again; then a ramp and a
    breaker trip through HAProxy, each step and the trip counted once in the audit log. Each
    request answered with a decision id must have exactly one row. Needs HAProxy (apt-get install
    haproxy).
    """
    _offline_and_stoppable()
    from bench.cluster.run import ClusterConfig, run_cluster
    from bench.load.run import write

    results = run_cluster(ClusterConfig(requests, concurrency, db=db, out=out))
    write(results, out)
    one, two, killed = results["one_replica"], results["two_replicas"], results["kill_and_restart"]
    ramp = results["ramp_and_breaker"]
    typer.echo(
        f"one replica {one['throughput_rps']} req/s ({one['decisions_per_s']} decisions/s); two behind "
        f"HAProxy {two['throughput_rps']} req/s ({two['decisions_per_s']} decisions/s); with a replica "
        f"killed at {killed['killed_at_s']} s: {killed['summary']['errors']} errors, rows missing "
        f"{killed['records']['missing']}, duplicated {killed['records']['duplicated']}; ramp steps "
        f"{ramp['ramp_steps']}, breaker trips {ramp['trips']} → {out}"
    )


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
    """The demo's travel agent end to end: task success and task latency p50/p95 per path.

    Direct, through the proxy at 0% (off), in shadow, and at 100% local; with the simulated
    upstream and with SmolLM2 generating.
    """
    _offline_and_stoppable()
    from bench.e2e.runner import CONDITIONS, UPSTREAMS, E2eConfig, run_e2e
    from examples.demo.cli import parse_latency

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


@bench_app.command("fuzz")
def fuzz(
    cases: Annotated[int, typer.Option(help="Chat bodies per kind (valid, invalid); policy sets")] = 500,
    tool_cases: Annotated[int, typer.Option(help="Tool-schema requests to the local engine (0: skip)")] = 100,
    out: Annotated[Path, typer.Option(help="Results JSON")] = Path("bench/results/fuzz.json"),
) -> None:
    """Property-based fuzz of a real `shadowswitch serve`: the API from its OpenAPI schema,
    odd tool schemas through the local engine, and mangled policy files. Exit 1 on any failure."""
    _offline_and_stoppable()
    from bench.fuzz.bench import run_fuzz

    results = run_fuzz(cases, tool_cases, out)
    total = results["total"]
    typer.echo(f"{total['cases']} cases, {total['failures']} failures → {out}")
    raise typer.Exit(1 if total["failures"] else 0)


@bench_app.command("precision")
def precision(
    limit: Annotated[int, typer.Option(help="BFCL cases per development file (live_*)")] = 40,
    requests: Annotated[int, typer.Option(help="Scaling requests (8 tools) timed in batches of 8")] = 64,
    repeats: Annotated[int, typer.Option(help="Timed passes per model shape")] = 7,
    out: Annotated[Path, typer.Option(help="Results JSON")] = Path("bench/results/precision.json"),
) -> None:
    """`engine.precision` float beside int8 in one process: the models' passes, the same
    decisions or not on BFCL development cases, decisions a second on the scaling requests."""
    _offline_and_stoppable()
    from bench.precision import run_precision

    doc = run_precision(out, limit, requests, repeats)
    for name, figures in doc["components"].items():
        typer.echo(f"{name}: {figures}")
    dev = doc["dev"]
    typer.echo(
        f"dev: {dev['same_decisions']}/{dev['cases']} the same; {dev['summary']}; ms p50 {dev['ms_p50']}"
    )
    typer.echo(f"scaling: {doc['scaling']}")


@bench_app.command("zh")
def zh(
    tasks: Annotated[
        str, typer.Option(help="dev: the BFCL dev cases; demo: the demo agent's decision steps")
    ] = "dev",
    limit: Annotated[int, typer.Option(help="Cases (dev) or tasks (demo) per language (0 = all)")] = 0,
    out: Annotated[
        Path | None, typer.Option(help="Results JSON [bench/results/zh.json, zh-demo.json]")
    ] = None,
) -> None:
    """The engine in Chinese beside English on the same requests: BFCL dev cases written in
    Chinese (bench/zh/dev.jsonl), or the demo travel agent's tasks (--tasks demo)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if tasks not in ("dev", "demo"):
        raise typer.BadParameter(f"{tasks!r}: choose dev or demo", param_hint="--tasks")
    if tasks == "demo":
        from bench.zh.demo_tasks import run_demo_tasks

        summary = run_demo_tasks(out or Path("bench/results/zh-demo.json"), limit or None)["summary"]
    else:
        from bench.zh.bench import run_zh

        summary = run_zh(out or Path("bench/results/zh.json"), limit or None)["summary"]
    for name, figures in summary.items():
        typer.echo(f"{name}: {figures}")


@bench_app.command("readers")
def readers(
    quick: Annotated[bool, typer.Option("--quick", help="A sample of each battery (seconds)")] = False,
    out: Annotated[Path, typer.Option(help="Results JSON")] = Path("bench/results/readers.json"),
) -> None:
    """The value readers against oracles (cn2an, dateparser, our own number-word writer): cases
    tried, read, missed and misread per reader."""
    from bench.readers.battery import run_readers

    summary = run_readers(out, "quick" if quick else "full")["summary"]
    for name, figures in summary.items():
        figures = figures.get("total", figures)  # the relative days: their total over the families
        typer.echo(f"{name}: " + ", ".join(f"{k} {v}" for k, v in figures.items() if k != "misread_examples"))


@bench_app.command("learning")
def learning(
    quick: Annotated[
        bool, typer.Option(help="Checkpoints 0, 25, 100 and 40 test requests (minutes)")
    ] = False,
    traffic: Annotated[
        str,
        typer.Option(
            help="bfcl: BFCL dev requests grouped by tool set; demo: the demo agent's steps; "
            "helpdesk: the help-desk agent's steps, test on held-out phrasings; "
            "shop: the shop agent's whole conversations, test on held-out customers"
        ),
    ] = "bfcl",
    lang: Annotated[str, typer.Option(help="demo: the language the customers write in, en or zh")] = "en",
    test_size: Annotated[int, typer.Option(help="Test requests per checkpoint")] = 150,
    checkpoints: Annotated[
        str, typer.Option(help="Shadow pairs at each checkpoint, comma-separated [0,50,100,200,400,1000]")
    ] = "",
    timings: Annotated[
        bool, typer.Option(help="Also time learning 1,000 pairs and choosing with 10,000 (bfcl)")
    ] = True,
    out: Annotated[
        Path | None,
        typer.Option(help="Results JSON [bench/results/learning.json; demo: learning_demo[_zh].json; ...]"),
    ] = None,
    tune_encoder: Annotated[
        bool, typer.Option(help="The policy's engine.tune_encoder: learning tunes the encoder's top layers")
    ] = True,
    new_wording: Annotated[
        bool,
        typer.Option(help="shop: the test customers open in words the stream never used"),
    ] = False,
) -> None:
    """Learning curve: local agreement and coverage after 0, 25, 100 and 400 shadow pairs.

    Replayed traffic through a real proxy: shadow with an upstream answering the expected call,
    `shadowswitch learn`, then canary 100% on other requests of the same kinds. `--traffic bfcl`:
    BFCL development requests of repeated tool sets; `--traffic demo`: the travel agent's steps,
    split by task (the set gives about 130 pairs: the last checkpoint is as many as it gives);
    `--traffic shop`: the shop agent's whole conversations, the test set other customers' (with
    `--new-wording`, opening in words the stream never used). Each
    checkpoint breaks its test steps down per tool and per argument, with where the values came from.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    from bench.learning_curve import run_learning

    kinds = split(traffic, ("bfcl", "demo", "helpdesk", "shop"), "traffic")
    if len(kinds) != 1:
        raise typer.BadParameter("one traffic set: bfcl, demo, helpdesk or shop")
    kind = kinds[0]
    points = _checkpoints(checkpoints) or ([0, 25, 100] if quick else [0, 50, 100, 200, 400, 1000])
    if lang not in ("en", "zh") or (lang != "en" and kind != "demo"):
        raise typer.BadParameter(f"{lang!r}: en, or zh with --traffic demo", param_hint="--lang")
    if new_wording and kind != "shop":
        raise typer.BadParameter("the shop's test customers only: --traffic shop", param_hint="--new-wording")
    if kind == "shop":
        from bench.learning_shop import shop_traffic

        name = "learning_shop_new_wording.json" if new_wording else "learning_shop.json"
        path = out or Path("bench/results") / name
        traffic_set = shop_traffic(new_wording=new_wording)
        run_learning(points, 40 if quick else test_size, path, False, traffic_set, tune_encoder=tune_encoder)
        return
    if kind == "helpdesk":  # about 900 stream pairs: the curve at 50, 100, 200, 400 and all
        from bench.learning_helpdesk import helpdesk_traffic

        path = out or Path("bench/results/learning_helpdesk.json")
        traffic_set = helpdesk_traffic()
        run_learning(points, 40 if quick else test_size, path, False, traffic_set, tune_encoder=tune_encoder)
        return
    if kind == "demo":
        from bench.learning_demo import demo_traffic

        suffix = "" if lang == "en" else f"_{lang}"
        path = out or Path(f"bench/results/learning_demo{suffix}.json")
        demo = demo_traffic(lang=lang)
        run_learning(points, 40 if quick else test_size, path, False, demo, tune_encoder=tune_encoder)
        return
    path = out or Path("bench/results/learning.json")
    run_learning(points, 40 if quick else test_size, path, timings and not quick, tune_encoder=tune_encoder)


def _checkpoints(text: str) -> list[int]:
    """ "0,100,400" → [0, 100, 400]; a bad list is the user's error, said plainly."""
    try:
        points = [int(p) for p in text.split(",") if p.strip()]
    except ValueError:
        raise typer.BadParameter(
            f"{text!r}: whole numbers, comma-separated", param_hint="--checkpoints"
        ) from None
    if points != sorted(set(points)) or any(p < 0 for p in points):
        raise typer.BadParameter(f"{text!r}: increasing, from 0", param_hint="--checkpoints")
    return points


if __name__ == "__main__":  # last: every command above is registered by now
    bench_app()
