"""`shadowswitch bench learning`: the learning curve of one task type on replayed traffic.

Traffic: BFCL development files in users' own words (`live_simple`, `live_multiple`,
`live_irrelevance`), grouped by tool set; only tool sets offered again and again (at least
`MIN_GROUP` requests) are kept, as an agent offers its tools at every step. Each group is split:
three requests in four go to the shadow stream, the fourth to the test set (other requests of the
same kind). A replay upstream answers every request as BFCL's ground truth says (the "large
model"; an irrelevant request gets text).

Through a real `shadowswitch serve` (the embedded models, SQLite): send shadow requests until
the task type has N pairs, run `shadowswitch learn`, switch to canary 100% and send the test set;
measure local agreement (BFCL's AST rule on the local call, or no tool when none is due) and
coverage (share answered locally), for N in the checkpoints. Test requests that fell back are
excluded from the exemplars afterwards, so that no test request is ever learned from.

`--traffic demo` replays the demo agent's own steps instead (bench/learning_demo.py), and
`--traffic helpdesk` the help-desk agent's (bench/learning_helpdesk.py); the traffic set
supplies the requests, the upstream, the policy and the judge, this module the run.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.bfcl.checker import Call, check_case
from bench.bfcl.data import BfclCase, load_cases
from bench.bfcl.proxy import free_port, running_proxy

TASK = "bfcl_repeated"
CATEGORIES = ("live_simple", "live_multiple", "live_irrelevance")
MIN_GROUP = 8
PACE = 16  # requests sent before waiting for their shadow runs (the proxy keeps 32 in flight)
SOURCES_OK = {"text", "default", "decoded", "enum_choice", "learned", "learned_transform"}


Judge = Callable[[Any, dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Traffic:
    """One traffic set of the curve: requests (anything with a `.request` body), split into the
    shadow stream and the test set, the "large model" that answers them, and how a local answer
    to a test request is judged."""

    name: str
    task: str  # the task type the requests are sent as
    model: str  # the `model` field the agent sends
    stream: list[Any]
    test: list[Any]
    judge: Judge
    policy: Callable[[str], dict[str, Any]]  # upstream base URL → the task type's policy
    upstream: Callable[[], AbstractContextManager[str]]  # yields the upstream's base URL
    about: dict[str, Any] = field(default_factory=dict)
    prepare: Callable[[str], None] | None = None  # given the upstream URL, before the first request
    answer_of: Callable[[Any], dict[str, Any]] | None = None  # the upstream's answer: the breakdown
    # Whether the upstream's answer to a test request is one of its own slips (a simulated model
    # knows its policy): no engine agrees there but by chance, so the figures show the ceiling.
    slipped: Callable[[Any], bool] | None = None


def bfcl_traffic() -> Traffic:
    stream, test = traffic()

    def register(upstream: str) -> None:
        answers = {_text(c): expected_answer(c) for c in stream + test}
        httpx.post(upstream + "/answers", json=answers, timeout=60).raise_for_status()

    about = {"categories": list(CATEGORIES), "min_group": MIN_GROUP}
    return Traffic("bfcl", TASK, "agent", stream, test, judge, policy, replay_upstream, about, register)


def traffic(seed: int = 0) -> tuple[list[BfclCase], list[BfclCase]]:
    """(shadow stream, test set): the repeated tool sets' requests, split three to one per group."""
    groups: dict[tuple[str, ...], list[BfclCase]] = defaultdict(list)
    for category in CATEGORIES:
        for case in load_cases(category):
            if case.tools and _text(case):
                groups[tuple(sorted(t["function"]["name"] for t in case.tools))].append(case)
    stream: list[BfclCase] = []
    test: list[BfclCase] = []
    for cases in groups.values():
        if len(cases) >= MIN_GROUP:
            for i, case in enumerate(cases):
                (test if i % 4 == 3 else stream).append(case)
    rng = random.Random(seed)
    rng.shuffle(stream)
    rng.shuffle(test)
    return stream, test


def _text(case: BfclCase) -> str:
    for message in reversed(case.request.get("messages") or []):
        if message.get("role") == "user" and isinstance(message.get("content"), str):
            return str(message["content"])
    return ""


def expected_answer(case: BfclCase) -> dict[str, Any]:
    """The ground truth as one call: each parameter's first acceptable value ("" = left out)."""
    if not case.answers:
        return {"content": "I cannot help with that using these tools."}
    name, answer = next(iter(case.answers[0].items()))
    reverse = {bfcl: ours for ours, bfcl in case.name_map.items()}
    arguments = {k: v[0] for k, v in answer.items() if v and v[0] != ""}
    return {"name": reverse.get(name, name), "arguments": arguments}


@contextmanager
def replay_upstream() -> Iterator[str]:
    import uvicorn

    from examples.upstreams.replay import create_replay_upstream

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_replay_upstream(), port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True


def policy(upstream: str) -> dict[str, Any]:
    return {
        "task_type": TASK,
        "upstream": {"model": "openai/replay", "api_base": upstream + "/v1", "api_key_env": "REPLAY_KEY"},
        "rollout": {"mode": "shadow"},
        "engine": {"scorer": "hybrid", "target_agreement": 0.95, "learn": True},
        "breaker": {"consecutive_failures": 1000, "reprobe_after_s": 0},
    }


class Bench:
    def __init__(self, base: str, workdir: Path, token: str, task: str = TASK, model: str = "agent"):
        self.base = base
        self.workdir = workdir
        self.task = task
        self.model = model
        self.http = httpx.Client(base_url=base, timeout=900, headers={"Authorization": f"Bearer {token}"})

    def send(self, case: Any) -> dict[str, Any]:
        body = {"model": self.model, **case.request}
        headers = {"X-Shadowswitch-Task": self.task}
        response = self.http.post("/v1/chat/completions", json=body, headers=headers)
        decision_id = response.headers["x-shadowswitch-decision-id"]
        return dict(self.http.get(f"/v1/shadowswitch/decisions/{decision_id}").json())

    def learning(self) -> dict[str, Any]:
        return dict(self.http.get(f"/v1/shadowswitch/learning/{self.task}").json())

    def set_mode(self, mode: str) -> None:
        change = {"mode": mode, "percent": 100 if mode == "canary" else 0}
        self.http.put(f"/v1/shadowswitch/rollouts/{self.task}", json=change).raise_for_status()

    def wait_recorded(self, ids: list[str], timeout_s: float = 1800) -> int:
        """Until every decision's shadow run has finished and the pair it makes, if any, is stored:
        the stream yields its pairs however slow the machine is. Returns how many shadow runs were
        skipped (the proxy's in-flight cap; 0 when the stream is paced below it)."""
        deadline = time.monotonic() + timeout_s
        pending, slowest, skipped = set(ids), 0.0, 0
        while pending and time.monotonic() < deadline:
            for decision_id in sorted(pending):
                shadow = self.http.get(f"/v1/shadowswitch/decisions/{decision_id}").json().get("shadow")
                if shadow:
                    pending.discard(decision_id)
                    slowest = max(slowest, float(shadow.get("latency_ms") or 0.0) / 1000)
                    skipped += bool(shadow.get("skipped"))
            if pending:
                time.sleep(0.3)
        # The exemplar is written after the shadow run (a fill of the upstream's tool, then the
        # store): wait for each, or until none has come for a while as slow as the slowest run.
        self.settle(ids, max(3.0, 3 * slowest), deadline)
        return skipped

    def settle(self, ids: list[str], still_s: float, deadline: float) -> None:
        """Until each decision of `ids` has its exemplar, or their count stayed `still_s` (not every
        answer makes a pair: a tool the engine did not shortlist, an invalid call)."""
        last, since = -1, time.monotonic()
        while time.monotonic() < deadline:
            stored = self.exemplars(ids)
            if stored >= len(ids):
                return
            if stored != last:
                last, since = stored, time.monotonic()
            elif time.monotonic() - since > still_s:
                return
            time.sleep(0.3)

    def exemplars(self, ids: list[str]) -> int:
        from sqlalchemy import create_engine, text

        engine = create_engine(self.db_url)
        try:
            with engine.connect() as connection:
                found = connection.execute(text("SELECT decision_id FROM exemplar")).scalars().all()
        finally:
            engine.dispose()
        return len(set(ids) & set(found))

    def learn(self) -> tuple[dict[str, Any], float]:
        start = time.perf_counter()
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "shadowswitch.cli",
                "learn",
                self.task,
                "--json",
                "--db",
                self.db_url,
                "--policies",
                str(self.workdir / "policies"),
            ],
            capture_output=True,
            text=True,
            timeout=1800,  # a long agent's 400 pairs took 9 minutes on 2 loaded cores
        )
        took = time.perf_counter() - start
        return (json.loads(run.stdout) if run.returncode == 0 else {"error": run.stderr[-500:]}), took

    @property
    def db_url(self) -> str:
        return f"sqlite:///{self.workdir / 'bench.db'}"


def judge(case: BfclCase, decision: dict[str, Any]) -> dict[str, Any]:
    """Was the local choice served, did it agree (BFCL's AST rule), did any served value lack
    provenance?"""
    if decision.get("chosen") == "__no_tool__":
        agree = not case.answers
    else:
        call = Call(str(decision.get("chosen")), dict(decision.get("arguments") or {}))
        agree = check_case(case, [call]).call_ok
    return judged(decision, bool(agree), lambda: miss(case, decision))


def judged(decision: dict[str, Any], agree: bool, why_missed: Callable[[], str]) -> dict[str, Any]:
    """A test request's figures, whatever the traffic: `agree` says whether the local answer is
    the upstream's; `why_missed` names what was wrong with a served one that is not."""
    served = decision.get("abstain_reason") is None and decision.get("chosen") is not None
    served = served and (decision.get("path") == "local" or decision.get("chosen") == "__no_tool__")
    sources = decision.get("argument_sources") or {}
    invented = sum(
        1 for k in (decision.get("arguments") or {}) if (sources.get(k) or {}).get("source") not in SOURCES_OK
    )
    timings = decision.get("timings_ms") or {}
    choice_ms = sum(float(timings.get(k, 0.0)) for k in ("candidates", "scoring"))
    return {
        "served": served,
        "agree": bool(agree),
        "invented": invented if served else 0,
        "choice_ms": choice_ms,
        "why": None if agree and served else why_missed() if served else abstained(decision),
    }


def miss(case: BfclCase, decision: dict[str, Any]) -> str:
    """What was wrong with a served answer that did not agree."""
    chosen = decision.get("chosen")
    if chosen == "__no_tool__":
        return "no tool where a call was due"
    if not case.answers:
        return "a call where none was due"
    error = check_case(case, [Call(str(chosen), dict(decision.get("arguments") or {}))]).error or ""
    for prefix, kind in (
        ("wrong function", "wrong tool"),
        ("optional parameter", "an optional parameter the upstream sets, left out"),
        ("wrong value", "a value the upstream writes otherwise"),
        ("unexpected parameter", "a parameter the upstream leaves out"),
        ("wrong type", "a value of another type"),
    ):
        if error.startswith(prefix):
            return kind
    return error or "other"


def abstained(decision: dict[str, Any]) -> str:
    """Why a test request was not answered locally: the reason's kind, without its figures."""
    reason = str(decision.get("abstain_reason") or decision.get("path") or "none")
    return reason.split(":")[0].split(" ")[0]


def checkpoint(
    bench: Bench,
    test: list[Any],
    pairs: int,
    judge: Judge = judge,
    tested: set[str] | None = None,
    answer_of: Callable[[Any], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    from shadowswitch.store import db
    from shadowswitch.store.exemplars import ExemplarStore

    tested = set() if tested is None else tested
    store = ExemplarStore(db.make_engine(bench.db_url))
    for decision_id in sorted(tested):  # a test request's pair written late: excluded all the same
        store.exclude(decision_id)
    learned, learn_s = bench.learn() if pairs else ({"status": "prior"}, 0.0)
    wait_version = learned.get("version")
    if wait_version:
        deadline = time.monotonic() + 30
        while bench.learning()["served_version"] != wait_version and time.monotonic() < deadline:
            time.sleep(0.3)
        time.sleep(1.5)
    bench.set_mode("canary")
    decisions = [bench.send(case) for case in test]
    judged = [judge(case, d) for case, d in zip(test, decisions, strict=True)]
    bench.set_mode("shadow")
    ids = [str(d["id"]) for d in decisions]
    tested.update(ids)
    # Test requests that fell back make pairs in the background: wait for them, then exclude them.
    bench.settle([str(d["id"]) for d in decisions if d.get("path") != "local"], 5.0, time.monotonic() + 120)
    for decision_id in ids:
        store.exclude(decision_id)
    served = [j for j in judged if j["served"]]
    wrong = sum(not j["agree"] for j in served)
    point: dict[str, Any] = {
        "pairs": pairs,
        "learn": {k: learned.get(k) for k in ("status", "version", "fitted", "why_not", "evaluation")},
        "learn_s": round(learn_s, 2),
        "served_version": bench.learning()["served_version"],
        "test_requests": len(judged),
        "coverage": round(len(served) / len(judged), 4) if judged else None,
        "agreement": round(sum(j["agree"] for j in served) / len(served), 4) if served else None,
        "agreement_all": round(sum(j["agree"] and j["served"] for j in judged) / len(judged), 4),
        # The cost of serving: local answers served wrong, per 100 test steps (the goal is <= 5).
        "wrong_served": wrong,
        "wrong_per_100": round(100 * wrong / len(judged), 2) if judged else None,
        "invented_values": sum(j["invented"] for j in judged),
        "choice_ms_p50": _p50([j["choice_ms"] for j in judged]),
        "misses": _counts(j["why"] for j in judged if j["served"] and not j["agree"]),
        "abstained": _counts(j["why"] for j in judged if not j["served"]),
    }
    if answer_of is not None:
        from bench.breakdown import breakdown

        point["breakdown"] = breakdown(test, decisions, answer_of, judged)
    return point


def slips(
    test: list[Any], slipped: Callable[[Any], bool], answer_of: Callable[[Any], dict[str, Any]]
) -> dict[str, int]:
    """Test steps whose upstream answer is one of its slips, by what the upstream answered."""
    calls = ["name" in answer_of(case) for case in test if slipped(case)]
    return {"tool_call_steps": sum(calls), "text_steps": len(calls) - sum(calls)}


def _counts(kinds: Iterable[str | None]) -> dict[str, int]:
    return dict(Counter(k or "other" for k in kinds).most_common())


def _p50(values: list[float]) -> float | None:
    ordered = sorted(values)
    return round(ordered[len(ordered) // 2], 2) if ordered else None


def choice_with_memory(exemplars: int = 10_000, requests: int = 30) -> dict[str, Any]:
    """The choice's p50 (candidates + scoring laps) in-process, with `exemplars` stored in the
    served memory of the task type, against the same requests with none."""
    import numpy as np

    from shadowswitch.engines.local import create_engine
    from shadowswitch.learning.memory import Memory
    from shadowswitch.policy.models import Engine, Policy
    from shadowswitch.request import ChatView

    engine = create_engine()
    stream, _ = traffic()
    cases = [c for c in stream if c.tools][:requests]
    names = sorted({t["function"]["name"] for c in cases for t in c.tools} | {"__no_tool__"})
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(exemplars, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    labels = np.array([names[i % len(names)] for i in range(exemplars)], dtype=object)
    calls = np.where(np.arange(exemplars) % 3 == 0, 0.0, 1.0)
    memory = Memory(1, engine.engine.models.encoder_id, vectors, labels, 0.8, 0.5, calls=calls)
    policy = Policy(task_type=TASK, engine=Engine(scorer="hybrid"))
    out: dict[str, Any] = {"exemplars": exemplars, "requests": len(cases)}
    for label, mem in (("without_memory", None), ("with_memory", memory)):
        laps = []
        for case in cases:
            choice = engine.decide_sync(ChatView.parse({"model": "m", **case.request}), policy, mem)
            timings = choice.trace.timings_ms
            laps.append(timings.get("candidates", 0.0) + timings.get("scoring", 0.0))
        out[f"choice_ms_p50_{label}"] = _p50(laps)
    engine.close()
    return out


def learn_time(workdir: Path, pairs: int = 1000) -> dict[str, Any]:
    """`challenger.learn` on `pairs` exemplars made from the run's own (repeated, with noise)."""
    import numpy as np

    from shadowswitch.learning import challenger
    from shadowswitch.policy.models import Engine
    from shadowswitch.store import db
    from shadowswitch.store.exemplars import ExemplarStore
    from shadowswitch.store.tables import Exemplar

    source = ExemplarStore(db.make_engine(f"sqlite:///{workdir / 'bench.db'}")).load(TASK, _encoder(workdir))
    url = f"sqlite:///{workdir / 'learn_time.db'}"
    db.upgrade(url)
    store = ExemplarStore(db.make_engine(url))
    rng = np.random.default_rng(0)
    for i in range(pairs):
        row = source[i % len(source)]
        vector = np.frombuffer(row.vector, dtype=np.float32) + rng.normal(scale=0.01, size=384)
        fields = row.model_dump(exclude={"id", "created_at", "vector", "decision_id", "task_type"})
        store.add(
            Exemplar(
                **fields,
                task_type="timed",
                decision_id=f"t{i}",
                vector=(vector / np.linalg.norm(vector)).astype(np.float32).tobytes(),
            )
        )
    start = time.perf_counter()
    result = challenger.learn(store, "timed", Engine(target_agreement=0.95), actor="bench", dry_run=True)
    return {"pairs": pairs, "seconds": round(time.perf_counter() - start, 2), "status": result["status"]}


def _encoder(workdir: Path) -> str:
    from shadowswitch.store import db
    from shadowswitch.store.exemplars import ExemplarStore

    return ExemplarStore(db.make_engine(f"sqlite:///{workdir / 'bench.db'}")).newest_encoder(TASK) or ""


def keep_database(source: Path, target: Path) -> None:
    """A consistent copy of the run's SQLite database, the writes still in its WAL included (a file
    copy of `bench.db` alone missed the served states and the newest pairs)."""
    import sqlite3
    from contextlib import closing

    with closing(sqlite3.connect(source)) as src, closing(sqlite3.connect(target)) as dst:
        src.backup(dst)


Proxy = Callable[[Path], AbstractContextManager[str]]  # workdir → a running proxy's base URL


def serve_proxy(workdir: Path) -> AbstractContextManager[str]:
    """`shadowswitch serve` in a subprocess, on workdir's policies and database."""
    return running_proxy(workdir, ready_timeout_s=1800)


def run_learning(
    checkpoints: list[int],
    test_size: int,
    out: Path,
    timings: bool = True,
    traffic_set: Traffic | None = None,
    proxy: Proxy = serve_proxy,
    tune_encoder: bool = True,
) -> dict[str, Any]:
    import os
    import tempfile
    from unittest.mock import patch

    import yaml
    from rich.console import Console

    console = Console(stderr=True)
    chosen = traffic_set or bfcl_traffic()
    stream, test = chosen.stream, chosen.test[:test_size]
    token = "bench-learning"
    # For the proxy and the CLI it starts; restored after, so a caller's process (a test) keeps its own.
    environment = {
        "SHADOWSWITCH_ADMIN_TOKEN": token,
        "REPLAY_KEY": "replay",
        "SHADOWSWITCH_LEARN_INTERVAL_S": "0",
    }
    results: dict[str, Any] = {
        "traffic": {
            "name": chosen.name,
            "task_type": chosen.task,
            **chosen.about,
            "stream": len(stream),
            "test_pool": len(test),
        },
        "tune_encoder": tune_encoder,
        "caveat": "2 shared cores, other jobs running: timings are noisy",
        "checkpoints": [],
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    with (
        patch.dict(os.environ, environment),
        tempfile.TemporaryDirectory(prefix="sslearn-") as tmp,
        chosen.upstream() as upstream,
    ):
        workdir = Path(tmp)
        if chosen.prepare:
            chosen.prepare(upstream)
        folder = workdir / "policies"
        folder.mkdir()
        task_policy = chosen.policy(upstream)
        task_policy["engine"]["tune_encoder"] = tune_encoder
        (folder / "_defaults.yaml").write_text(yaml.safe_dump({"upstream": task_policy["upstream"]}))
        (folder / f"{chosen.task}.yaml").write_text(yaml.safe_dump(task_policy))
        with proxy(workdir) as base:
            bench = Bench(base, workdir, token, chosen.task, chosen.model)
            sent, skipped = 0, 0
            tested: set[str] = set()  # every test request's decision: never learned from
            for target in checkpoints:
                pairs = int(bench.learning()["pairs"])
                while pairs < target and sent < len(stream):
                    batch = stream[sent : sent + min(target - pairs, PACE)]
                    # Paced: a batch's shadow runs and pairs are all recorded before the next,
                    # so none is skipped for want of room and none is counted late.
                    ids = [bench.send(case)["id"] for case in batch]
                    sent += len(batch)
                    skipped += bench.wait_recorded(ids)
                    pairs = int(bench.learning()["pairs"])
                point = checkpoint(bench, test, pairs, chosen.judge, tested, chosen.answer_of)
                if chosen.slipped is not None and chosen.answer_of is not None:
                    point["upstream_slipped"] = slips(test, chosen.slipped, chosen.answer_of)
                    for step, case in zip(point.get("breakdown", {}).get("steps", []), test, strict=False):
                        step["slipped"] = chosen.slipped(case)
                point["stream_sent"] = sent
                point["shadow_skipped"] = skipped
                console.print(f"pairs {pairs}: { {k: v for k, v in point.items() if k != 'breakdown'} }")
                results["checkpoints"].append(point)
                out.write_text(json.dumps(results, indent=2))
                if sent >= len(stream) and pairs < target:
                    break  # the stream is spent: the later checkpoints would repeat this one
        keep = os.environ.get("SHADOWSWITCH_BENCH_KEEP_DB")
        if keep:  # the pairs, for an offline side-by-side of learners (bench/learning_offline.py)
            keep_database(workdir / "bench.db", Path(keep))
        if timings:
            results["learn_1000_pairs"] = learn_time(workdir)
            results["choice_with_10000_exemplars"] = choice_with_memory()
    out.write_text(json.dumps(results, indent=2))
    return results
