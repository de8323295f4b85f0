"""`shadowswitch bench precision`: the engine with `engine.precision: float` beside `int8`.

Two engines in one process, one per precision, on the same inputs, each step run for one and
then the other so that the machine's load falls on both alike:

- `components`: the models' passes at the shapes the engine runs — the encoder on a batch of 16
  texts of 16, 32 and 64 tokens, the LM over 48 and 400 tokens (a request's turn; a tool's
  schema, the prompt's fixed part) and one decoding step after 400 — as CPU milliseconds of one
  torch thread (the arithmetic, whatever else runs on the machine), medians;
- `dev`: BFCL development cases (`live_*`, an even stride of each file) decided by both with
  the hybrid scorer and thresholds 0: how many decisions are the same (tool, arguments,
  abstention), and each one's accuracy by BFCL's AST rule;
- `scaling`: the scaling benchmark's requests (8 tools, each question once) in batches of 8, as
  the engine thread batches them: decisions a second, and the language model's passes per
  decision (value re-ranks, decoded values, forward passes in all).
"""

from __future__ import annotations

import os
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.bfcl.data import load_cases
from bench.bfcl.results import git_commit, machine_info, write_results

PRECISIONS = ("float", "int8")
DEV_FILES = ("live_simple", "live_multiple", "live_irrelevance", "live_relevance")
SAME = ("chosen", "arguments", "abstain")  # what makes two decisions the same


def run_precision(out: Path, limit: int = 40, scaling: int = 64, repeats: int = 7) -> dict[str, Any]:
    from bench.scaling import run
    from shadowswitch.engines.local import configure_torch, create_engine
    from shadowswitch.policy.models import ModelSource

    os.environ.update(run._dtypes())  # float as the CPU runs it natively, not a probe's pick under load
    threads = configure_torch()
    engines = {p: create_engine(ModelSource("embedded", precision=p)) for p in PRECISIONS}
    try:
        doc = {
            "benchmark": "precision",
            "git_commit": git_commit(),
            "machine": machine_info(),
            "config": {
                "precisions": list(PRECISIONS),
                "dev_files": list(DEV_FILES),
                "dev_cases_per_file": limit,
                "scaling_requests": scaling,
                "torch_threads": threads,
                "dtypes": {p: _dtypes(e) for p, e in engines.items()},
            },
            "components": components(engines, repeats),
            "dev": dev(engines, limit),
            "scaling": scaling_rate(engines, scaling),
        }
    finally:
        for engine in engines.values():
            engine.close()
    write_results(out, doc)
    return doc


def _dtypes(engine: Any) -> dict[str, str]:
    from shadowswitch.engines.local.runtime.models import precision_of

    return {"lm": precision_of(engine.models.lm), "encoder": precision_of(engine.models.encoder)}


def components(engines: dict[str, Any], repeats: int) -> dict[str, dict[str, float]]:
    """Median CPU ms of one pass on one torch thread, per shape and precision."""
    import torch

    torch.manual_seed(0)
    passes: dict[str, Callable[[Any], Any]] = {}

    def encode(ids: Any) -> Callable[[Any], Any]:
        return lambda m: m.encoder(input_ids=ids, attention_mask=torch.ones_like(ids))

    def read(ids: Any) -> Callable[[Any], Any]:
        return lambda m: m.lm(input_ids=ids, use_cache=True)

    for batch, tokens in ((16, 16), (16, 32), (16, 64)):
        passes[f"encoder {batch}x{tokens}"] = encode(torch.randint(1000, 2000, (batch, tokens)))
    for tokens in (48, 400):
        passes[f"lm 1x{tokens}"] = read(torch.randint(1000, 2000, (1, tokens)))
    prefix = torch.randint(1000, 2000, (1, 400))
    caches = {
        id(e.models): e.models.lm(input_ids=prefix, use_cache=True).past_key_values for e in engines.values()
    }

    def step(m: Any) -> None:
        cache = caches[id(m)]
        m.lm(input_ids=torch.tensor([[1500]]), past_key_values=cache, use_cache=True)
        cache.crop(-1)  # back to the 400 tokens

    passes["lm step after 400"] = step
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    out: dict[str, dict[str, float]] = {}
    try:
        with torch.inference_mode():
            for name, run in passes.items():
                times: dict[str, list[float]] = {p: [] for p in engines}
                for k in range(repeats + 2):
                    for precision, engine in engines.items():
                        begun = time.thread_time()
                        run(engine.models)
                        if k >= 2:  # the first two pick kernels
                            times[precision].append((time.thread_time() - begun) * 1000)
                out[name] = {p: round(statistics.median(v), 1) for p, v in times.items()}
                out[name]["int8_over_float"] = round(out[name]["int8"] / out[name]["float"], 2)
    finally:
        torch.set_num_threads(before)
    return out


def dev(engines: dict[str, Any], limit: int) -> dict[str, Any]:
    from bench.zh.bench import policy, run_case, summarise
    from shadowswitch.engines.local.runtime import budget

    pol = policy("english")
    rows: dict[str, list[dict[str, Any]]] = {p: [] for p in engines}
    cases = [case for name in DEV_FILES for case in load_cases(name, limit)]
    with budget.bounded(budget.Deadline()):  # no budget: the decisions compared are complete
        for case in cases:
            for precision, engine in engines.items():
                rows[precision].append(run_case(engine, case, pol))
    float_rows, int8_rows = rows["float"], rows["int8"]
    differ = [
        {"id": a["id"], **{p: {k: r[k] for k in SAME} for p, r in zip(PRECISIONS, (a, b), strict=True)}}
        for a, b in zip(float_rows, int8_rows, strict=True)
        if any(a[k] != b[k] for k in SAME)
    ]
    return {
        "cases": len(cases),
        "same_decisions": len(cases) - len(differ),
        "same_tool": sum(a["chosen"] == b["chosen"] for a, b in zip(float_rows, int8_rows, strict=True)),
        "summary": {p: summarise(r) for p, r in rows.items()},
        "ms_p50": {p: round(statistics.median(r["ms"] for r in v), 1) for p, v in rows.items()},
        "differ": differ,
    }


def scaling_rate(engines: dict[str, Any], count: int) -> dict[str, Any]:
    from bench.scaling.run import MAX_CANDIDATES, TASK
    from bench.scaling.tools import requests_with_tools
    from shadowswitch.engines.local.decider import Job
    from shadowswitch.policy.models import Policy
    from shadowswitch.request import ChatView

    engine = {"max_candidates": MAX_CANDIDATES, "min_confidence": 0, "min_margin": 0, "certify": False}
    engine["time_budget_ms"] = 60_000  # whole decisions: the LM passes they need are counted
    pol = Policy.model_validate({"task_type": TASK, "match": {"model": TASK}, "engine": engine})
    requests = [ChatView.parse(r.body) for r in requests_with_tools(count, 8, 1)]
    for e in engines.values():  # warm-up on other questions
        e._run([Job(ChatView.parse(r.body), pol) for r in requests_with_tools(8, 8, 99, start=1000)])
    seconds = dict.fromkeys(engines, 0.0)
    passes = {p: Counter[str]() for p in engines}
    for i in range(0, len(requests), 8):
        for precision, e in engines.items():
            with counting(passes[precision]):
                begun = time.perf_counter()
                e._run([Job(r, pol) for r in requests[i : i + 8]])
                seconds[precision] += time.perf_counter() - begun
    return {
        "requests": len(requests),
        "tools": 8,
        "decisions_per_s": {p: round(len(requests) / s, 2) for p, s in seconds.items()},
        "lm_per_decision": {
            p: {k: round(v / len(requests), 2) for k, v in c.items()} for p, c in passes.items()
        },
    }


@contextmanager
def counting(counts: Counter[str]) -> Iterator[None]:
    """Count the LM's work inside the block: value re-ranks (`rerank`), values decoded under the
    schema's grammar (`decode`), and forward passes of any kind (`forward`)."""
    from shadowswitch.engines.local.decider import Decider
    from shadowswitch.engines.local.runtime.lm import LanguageModel

    keys = {
        (Decider, "rerank"): "rerank",
        (Decider, "_decode"): "decode",
        (LanguageModel, "_forward"): "forward",
    }
    originals = {(cls, name): getattr(cls, name) for cls, name in keys}

    def counted(key: str, method: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            counts[key] += 1
            return method(*args, **kwargs)

        return wrapper

    for (cls, name), method in originals.items():
        setattr(cls, name, counted(keys[cls, name], method))
    try:
        yield
    finally:
        for (cls, name), method in originals.items():
            setattr(cls, name, method)
