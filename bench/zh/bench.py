"""`shadowswitch bench zh`: the local engine on the Chinese development set, beside the same
cases in English.

`bench/zh/dev.jsonl` holds, per line, a BFCL development case's id (live_* files only), its
request written in Chinese by hand (`zh`), and, where the Chinese text changes what is right,
the acceptable values (`answers`, BFCL's format; else the case's own). The tools are the case's,
in English, as an agent serving Chinese users would usually send them.

Each case runs in-process through `ChoiceEngine.decide_sync` with thresholds 0 (the engine always
answers, as `bench bfcl` measures its scorers), once per system:
- `en`: the English request, `encoder: auto` (reads it with the English encoder);
- `zh`: the Chinese request, `encoder: auto` (reads it with the multilingual encoder);
- `en_multilingual`: the English request read with the multilingual encoder, i.e. what `auto`
  decided per task type (a Chinese task type's English requests) would do.
Figures: choice accuracy (the top-ranked tool is the expected one; cases that expect a call),
no-tool accuracy (irrelevance cases on which the engine calls no tool: it answers directly or
hands the case to the generative path), full-call accuracy (the engine's own call matches BFCL's
answer; an abstain counts as wrong), and the abstain share.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from bench.bfcl.checker import Call, check_case
from bench.bfcl.data import BfclCase, load_cases, openai_name
from bench.bfcl.results import git_commit, machine_info, write_results

DEV = Path(__file__).parent / "dev.jsonl"
ALLOWED = ("live_simple", "live_multiple", "live_irrelevance", "live_relevance")  # dev files only
SYSTEMS = {"en": ("en", "auto"), "zh": ("zh", "auto"), "en_multilingual": ("en", "multilingual")}


@dataclass(frozen=True)
class Pair:
    """One development case in both languages."""

    english: BfclCase
    chinese: BfclCase


def load_pairs(path: Path = DEV) -> list[Pair]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    by_id: dict[str, BfclCase] = {}
    for category in sorted({r["id"].rsplit("_", 1)[0] for r in rows}):
        if category not in ALLOWED:
            raise ValueError(f"{category}: not a development file")
        by_id |= {c.id: c for c in load_cases(category)}
    return [Pair(by_id[r["id"]], chinese(by_id[r["id"]], r["zh"], r.get("answers"))) for r in rows]


def chinese(case: BfclCase, text: str, answers: list[dict[str, Any]] | None) -> BfclCase:
    """The case with its last user turn replaced by `text`."""
    messages = [dict(m) for m in case.request["messages"]]
    last = max(i for i, m in enumerate(messages) if m["role"] == "user")
    messages[last]["content"] = text
    return replace(case, request={**case.request, "messages": messages}, answers=answers or case.answers)


def policy(encoder: str, default_thresholds: bool = False) -> Any:
    from bench.bfcl.proxy import policy_for
    from shadowswitch.policy.models import Policy

    raw = policy_for("hybrid", default_thresholds=default_thresholds)
    raw["engine"]["encoder"] = encoder
    return Policy.model_validate(raw)


def run_case(engine: Any, case: BfclCase, pol: Any) -> dict[str, Any]:
    from shadowswitch.request import ChatView

    start = time.perf_counter()
    choice = engine.decide_sync(ChatView.parse(case.request), pol)
    ms = (time.perf_counter() - start) * 1000
    top = choice.trace.candidates[0].id if choice.trace.candidates else choice.name
    calls: list[Call] = []
    if choice.kind == "tool" and choice.name and not choice.abstain_reason:
        calls = [Call(choice.name, dict(choice.arguments or {}))]
    expected = [openai_name(name) for answer in case.answers or [] for name in answer]
    verdict = check_case(case, calls)
    return {
        "id": case.id,
        "expects_call": case.expects_call,
        "choice_ok": bool(expected) and top in expected,
        "no_tool_ok": not case.expects_call and not calls,
        "call_ok": verdict.call_ok and bool(calls or not case.expects_call),
        "chosen": top,
        "arguments": calls[0].arguments if calls else None,
        "abstain": choice.abstain_reason,
        "ms": round(ms, 1),
    }


def value_counts(calls: list[dict[str, Any]], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Of the cases whose tool was chosen right, those served with a wrong value (misread: worse)
    and those abstained on for want of one (missed: `missing_value:<param>`); every abstention
    by its reason."""
    right = [r for r in calls if r["choice_ok"]]
    return {
        "values_misread": sum(1 for r in right if r["arguments"] is not None and not r["call_ok"]),
        "values_missed": sum(1 for r in right if str(r["abstain"] or "").startswith("missing_value:")),
        "abstentions": dict(sorted(Counter(r["abstain"] for r in rows if r["abstain"]).items())),
    }


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    calls = [r for r in rows if r["expects_call"]]
    irrelevant = [r for r in rows if not r["expects_call"]]

    def rate(flags: list[bool]) -> float | None:
        return round(sum(flags) / len(flags), 4) if flags else None

    return {
        "cases": len(rows),
        "choice_acc": rate([r["choice_ok"] for r in calls]),
        "no_tool_acc": rate([r["no_tool_ok"] for r in irrelevant]),
        "full_call_acc": rate([r["call_ok"] for r in calls]),
        "abstain_rate": rate([bool(r["abstain"]) for r in rows]),
        **value_counts(calls, rows),
    }


def run_zh(out: Path, limit: int | None = None, systems: tuple[str, ...] = tuple(SYSTEMS)) -> dict[str, Any]:
    from shadowswitch.engines.local import configure_torch, create_engine

    pairs = load_pairs()[:limit] if limit else load_pairs()
    configure_torch()
    engine = create_engine()
    results: dict[str, list[dict[str, Any]]] = {}
    for name in systems:
        language, encoder = SYSTEMS[name]
        pol = policy(encoder)
        cases = [p.chinese if language == "zh" else p.english for p in pairs]
        results[name] = [run_case(engine, case, pol) for case in cases]
    doc = {
        "benchmark": "zh",
        "git_commit": git_commit(),
        "machine": machine_info(),
        "config": {"dev_set": str(DEV.relative_to(DEV.parents[2])), "cases": len(pairs), "thresholds": 0},
        "summary": {name: summarise(rows) for name, rows in results.items()},
        "cases": results,
    }
    write_results(out, doc)
    engine.close()
    return doc
