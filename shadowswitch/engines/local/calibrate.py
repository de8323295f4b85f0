"""Fit calibration.json on BFCL development data (the live_* files only; never the test files).

    python -m shadowswitch.engines.local.calibrate [--limit N]

Choice: the "answer directly" similarity and the softmax temperature, from live_multiple,
live_simple and live_relevance (a tool is right) against live_irrelevance (no tool is right).
Values: logistic regression over (parameter, value) features on live_simple + live_multiple,
then the optional-parameter threshold that maximises full-call accuracy there.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import asdict, replace
from typing import Any

import torch

from .argscore import TextIndex, features
from .arguments import _order_matches
from .calibration import PATH, Calibration
from .candidates import offered_tools
from .conversation import last_user_text
from .engine import Decider
from .models import load_models
from .params import params_of
from .values import extract

CALL_SETS = ("live_simple", "live_multiple")


def choice_rows(decider: Decider, cases: list[Any]) -> list[tuple[list[float], int]]:
    """(similarity to each tool, index of the right tool or -1 when none is right)."""
    rows = []
    for case in cases:
        tools = offered_tools(case.request)
        query = decider.encoder.embed([last_user_text(case.request) or " "])[0]
        sims = decider.chooser.similarities(query, tools)
        right = -1
        if case.answers:
            want = next(iter(case.answers[0]))
            right = next((i for i, t in enumerate(tools) if case.name_map.get(t.id) == want), -1)
        elif case.expects_call:
            right = max(range(len(sims)), key=lambda i: sims[i])  # relevance: any tool is right
        rows.append((sims, right))
    return rows


def fit_choice(rows: list[tuple[list[float], int]]) -> tuple[float, float, float]:
    """(no-tool similarity, temperature, balanced accuracy) by grid search."""
    best = (0.0, 0.05, -1.0)
    for tau in [i / 100 for i in range(0, 60)]:
        acc_tool, acc_none = _accuracies(rows, tau)
        score = (acc_tool + acc_none) / 2
        if score > best[2]:
            best = (tau, 0.05, score)
    tau = best[0]
    temps = [0.01, 0.02, 0.03, 0.05, 0.08, 0.1, 0.15, 0.2]
    temp = min(temps, key=lambda t: _nll(rows, tau, t))
    return tau, temp, best[2]


def _accuracies(rows: list[tuple[list[float], int]], tau: float) -> tuple[float, float]:
    tool_ok = [max(s) > tau and s.index(max(s)) == r for s, r in rows if r >= 0]
    none_ok = [max(s) <= tau for s, r in rows if r < 0]
    return sum(tool_ok) / max(len(tool_ok), 1), sum(none_ok) / max(len(none_ok), 1)


def _nll(rows: list[tuple[list[float], int]], tau: float, temp: float) -> float:
    total = 0.0
    for sims, right in rows:
        scores = [*sims, tau]
        target = scores[right] if right >= 0 else tau
        top = max(scores)
        log_z = top / temp + math.log(sum(math.exp((x - top) / temp) for x in scores))
        total += log_z - target / temp
    return total / len(rows)


Group = tuple[list[tuple[dict[str, float], int]], int]  # (features, right) per value; absent ok


def value_rows(decider: Decider, cases: list[Any]) -> list[Group]:
    """Per parameter of the right tool: each candidate's features and whether BFCL accepts it,
    and whether leaving the parameter out is acceptable (-1: it is required)."""
    from shadowswitch.bench.checker import check_param

    groups: list[Group] = []
    for case in cases:
        want, answer = next(iter(case.answers[0].items()))
        tool = next(t for t in offered_tools(case.request) if case.name_map.get(t.id) == want)
        text = last_user_text(case.request)
        params = [p for p in params_of(tool.parameters) if p.kind in ("string", "integer", "number")]
        spans, index = extract(text), TextIndex.of(text)
        orders = _order_matches(params, spans)
        by_param: dict[str, list[tuple[dict[str, float], int]]] = {p.name: [] for p in params}
        for pair in decider.filler._pairs(params, spans, index):
            p, s = pair.param, pair.span
            ok = p.name in answer and check_param(p.name, pair.value, answer[p.name], p.schema) is None
            sim = decider._similarity([p.text], [s.text])[0][0]
            by_param[p.name].append((features(p, s, index, sim, (p.name, s.start) in orders), int(ok)))
        for p in params:
            absent = -1 if p.required else int("" in answer.get(p.name, [""]))
            groups.append((by_param[p.name], absent))
    return groups


def fit_values(groups: list[Group], l2: float = 1e-3) -> dict[str, float]:
    """Listwise: per parameter, a softmax over its candidates (plus "leave it out" for optional
    parameters, whose score is the learned threshold) should put its mass on acceptable ones."""
    usable = [(rows, absent) for rows, absent in groups if any(r[1] for r in rows) or absent == 1]
    names = sorted({k for rows, _ in usable for f, _ in rows for k in f})
    w = torch.zeros(len(names), requires_grad=True)
    threshold = torch.zeros(1, requires_grad=True)
    data = [(torch.tensor([[f.get(n, 0.0) for n in names] for f, _ in rows] or [[0.0] * len(names)]),
             torch.tensor([bool(r) for _, r in rows] or [False]), bool(rows), absent)
            for rows, absent in usable]  # fmt: skip
    opt = torch.optim.LBFGS([w, threshold], max_iter=300)

    def closure() -> torch.Tensor:
        opt.zero_grad()
        loss = l2 * (w**2).sum()
        for x, right, has_rows, absent in data:
            scores = x @ w if has_rows else torch.full((1,), -1e4)
            mask = right.clone()
            if absent >= 0:
                scores, mask = torch.cat([scores, threshold]), torch.cat([mask, torch.tensor([absent == 1])])
            loss = loss + (torch.logsumexp(scores, 0) - torch.logsumexp(scores[mask], 0)) / len(data)
        loss.backward()
        return loss

    opt.step(closure)
    weights = {n: round(float(v), 4) for n, v in zip(names, w.detach(), strict=True)}
    return weights | {"bias": 0.0, "_threshold": round(float(threshold.detach()), 4)}


def full_call_accuracy(decider: Decider, cases: list[Any]) -> float:
    from shadowswitch.bench.checker import check_arguments

    ok = 0
    for case in cases:
        want, answer = next(iter(case.answers[0].items()))
        tool = next(t for t in offered_tools(case.request) if case.name_map.get(t.id) == want)
        args = decider.filler.fill(tool.parameters, last_user_text(case.request))
        ok += check_arguments(args, answer, tool.parameters) is None
    return ok / max(len(cases), 1)


def main() -> None:
    from shadowswitch.bench.bfcl_data import load_cases

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=int, default=None, help="cases per file (even stride)")
    parser.add_argument("--values-only", action="store_true", help="keep the choice calibration")
    args = parser.parse_args()
    decider = Decider(load_models())
    load = lambda name: load_cases(name, args.limit)  # noqa: E731
    call_cases = [c for n in CALL_SETS for c in load(n) if c.answers]
    if args.values_only:
        tau, temp, balanced = decider.cal.no_tool_similarity, decider.cal.choice_temperature, -1.0
    else:
        choice = choice_rows(decider, call_cases + load("live_relevance") + load("live_irrelevance"))
        tau, temp, balanced = fit_choice(choice)
    print(f"choice: no_tool={tau} temperature={temp} balanced={balanced:.3f}", flush=True)
    groups = value_rows(decider, call_cases)
    weights = fit_values(groups)
    threshold = weights.pop("_threshold")
    print(f"values: {len(groups)} parameters; threshold {threshold}; {weights}", flush=True)
    cal = replace(decider.cal, no_tool_similarity=tau, choice_temperature=temp,
                  value_weights=weights, optional_threshold=threshold)  # fmt: skip
    full_call = _with(decider, cal, call_cases)
    cal = replace(cal, note=_note(args.limit, balanced, full_call))
    PATH.write_text(json.dumps(asdict(cal), indent=2) + "\n", encoding="utf-8")
    print(json.dumps({"no_tool_similarity": tau, "temperature": temp, "balanced": balanced,
                      "optional_threshold": threshold, "dev_full_call": full_call}))  # fmt: skip


def _with(decider: Decider, cal: Calibration, cases: list[Any]) -> float:
    decider.cal = decider.filler.cal = cal
    return full_call_accuracy(decider, cases)


def _note(limit: int | None, balanced: float, full_call: float) -> str:
    sample = "all cases" if limit is None else f"{limit} cases per file (even stride)"
    return (
        "Fitted by shadowswitch.engines.local.calibrate on BFCL v4 development files only "
        f"(live_simple, live_multiple, live_relevance, live_irrelevance; {sample}). "
        f"Dev balanced tool/no-tool accuracy {balanced:.3f}; dev full-call accuracy "
        f"(arguments given the right tool) {full_call:.3f}."
    )


if __name__ == "__main__":
    main()
