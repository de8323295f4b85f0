"""Fit the prior (calibration.json, format 1) on BFCL development data (live_*, parallel*, exec_*;
never the test files), for the models it loads.

    python -m bench.calibrate [--limit N] [--model SPEC] [--output PATH]
    python -m bench.calibrate --encoder multilingual --no-value-lm   # priors/calibration-multilingual.json

The prior names the models it was fitted for; the engine keeps only the parts that fit the
models it loads (shadowswitch.engines.local.calibration). The reference tools are written next to
it (`reference_tools.json`).

Choice: the softmax temperature and the "answer directly" weights and metric (relevance.py), in two
styles weighed equally: chat (live_multiple, live_simple and live_relevance, a tool is right,
against live_irrelevance) and formal (parallel, parallel_multiple and BFCL's retired executable
files exec_*, against each question offered an unrelated tool of another case). The reference
tools (reference.py) are the dev files' tool descriptions; each case's own tools are left out.
Values: logistic regression over (parameter, value) features on live_simple + live_multiple
and the formal files (a value is right when one of the tool's calls has it), then per
parameter group the threshold for leaving an optional parameter out that gets most parameters
right there, then when and how much the LM's log-probability re-ranks close text values
(`fit_value_lm`, on whole calls).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import torch

from bench.bfcl.data import EXEC_CATEGORIES, BfclCase
from shadowswitch.engines.local.arguments.extract import extract
from shadowswitch.engines.local.arguments.features import GROUPS, TextIndex, group, linear
from shadowswitch.engines.local.arguments.params import params_of
from shadowswitch.engines.local.calibration import (
    E5_MEANING,
    PACKAGED,
    PACKAGED_MULTILINGUAL,
    Calibration,
    FittedFor,
    load_calibration,
    write_calibration,
)
from shadowswitch.engines.local.choice import reference
from shadowswitch.engines.local.choice.candidates import Candidate, offered_tools
from shadowswitch.engines.local.choice.relevance import (
    Coverage,
    agreement,
    metric_match,
    no_tool_features,
    no_tool_level,
    top_margin,
)
from shadowswitch.engines.local.conversation import query_text
from shadowswitch.engines.local.decider import Decider
from shadowswitch.engines.local.runtime.models import LoadedModels, load_models
from shadowswitch.engines.local.runtime.process import configure_torch
from shadowswitch.request import ChatView

CALL_SETS = ("live_simple", "live_multiple")
# e5's cosine at which a phrase means an option (calibration.E5_MEANING): matching Chinese/English
# pairs measured 0.86-0.90 ("早餐"/breakfast 0.898), unrelated ones 0.78-0.85, with exceptions
# ("天气"/celsius 0.886): the glossary (languages/zh/tables/glossary.json) matches options first, so this only
# catches near-copies.


def view(case: BfclCase) -> ChatView:
    """The case's request as the engine sees it (parsed as the API parses it)."""
    return ChatView.parse(case.request)


ChoiceRow = tuple[list[float], Coverage, int, float, int, torch.Tensor]
"""Per case: similarity to each tool, the value coverage of the most similar one, the index of
the right tool (-1: no tool is right), the reference similarity (reference.py), the style, and
the elementwise product of the request's and the most similar tool's vectors (metric_match)."""

STYLES = ("chat", "formal")  # live_* files: users' own words; parallel*: written questions
FORMAL_SETS = ("parallel", "parallel_multiple", *EXEC_CATEGORIES)
UNRELATED = 0.5  # a tool is unrelated to a case when its cosine with each of the case's is below


def choice_rows(
    decider: Decider, cases: list[Any], style: int, own: Mapping[str, list[str]] | None = None
) -> list[ChoiceRow]:
    """`own`: per case id, the tool texts of the question it was built from (synthetic no-tool
    cases), left out of the reference tools as the offered ones are: one case out."""
    rows: list[ChoiceRow] = []
    for case in cases:
        tools = offered_tools(view(case))
        if not tools:
            continue
        text = view(case).last_user_text
        query = decider.encoder.embed([query_text(view(case))])[0]
        sims = decider.chooser.similarities(query, tools)
        top = max(range(len(sims)), key=lambda i: sims[i])
        coverage = decider.filler.coverage(tools[top].parameters, text)
        product = agreement(query, decider.encoder.embed_cached([tools[top].text])[0])
        mine = [t.text for t in tools] + list((own or {}).get(case.id, []))
        reference = decider.reference.best(query, decider.encoder.embed_cached(mine))
        right = -1
        if case.answers:  # several called tools (parallel_multiple): the top one is right if called
            names = {name for answer in case.answers for name in answer}
            called = [i for i, t in enumerate(tools) if case.name_map.get(t.id) in names]
            right = top if top in called else (called[0] if called else -1)
        elif case.expects_call:
            right = top  # relevance: any tool is right
        rows.append((sims, coverage, right, reference, style, product))
    return rows


def unrelated_tool_cases(
    decider: Decider, cases: list[Any], per_case: int = 3
) -> tuple[list[Any], dict[str, list[str]]]:
    """No-tool cases in the style of the formal files: each question offered, alone, one of the
    tools of the other cases most similar to it that is unrelated to its own tools, and once all
    of those together (so that how many tools are offered tells nothing). Also, per new case,
    the tool texts of the question's own case."""
    from bench.bfcl.data import BfclCase

    raw = {(k, t["function"]["name"]): t for k, c in enumerate(cases) for t in c.request["tools"]}
    pool = [(k, raw[k, t.id], t.text) for k, c in enumerate(cases) for t in offered_tools(view(c))]
    vectors = decider.encoder.embed_cached([text for *_, text in pool])
    queries = decider.encoder.embed([query_text(view(c)) for c in cases])
    out, own_texts = [], {}
    for k, case in enumerate(cases):
        texts = [t.text for t in offered_tools(view(case))]
        own = decider.encoder.embed_cached(texts)
        related = (vectors @ own.T).max(dim=1).values >= UNRELATED
        picked: list[dict[str, Any]] = []
        for j in (vectors @ queries[k]).argsort(descending=True).tolist():
            if pool[j][0] == k or related[j]:
                continue
            picked.append(pool[j][1])
            if len(picked) == per_case:
                break
        offers = [[tool] for tool in picked] + ([picked] if len(picked) > 1 else [])
        for i, tools in enumerate(offers):
            request = {**case.request, "tools": tools}
            out.append(BfclCase(f"unrelated_{i}_{case.id}", "irrelevance_synthetic", request, None, {}))
            own_texts[out[-1].id] = texts
    return out, own_texts


CUTOFFS = [float(c) for c in range(-2, 6)]
SHIFTS = [d / 200 for d in range(-100, 101)]  # bias shifts scanned, in similarity units


def fit_choice(rows: list[ChoiceRow]) -> tuple[dict[str, float], list[float], float, float]:
    """The "answer directly" weights (relevance.py) and the softmax temperature.

    A tool is called when its similarity beats the no-tool level, a linear function of the
    features: a logistic regression of "a tool is right" on the top similarity and the features
    gives the direction (each stratum, style × one tool or several, and class weighed equally;
    with it the weights of metric_match, under a stronger penalty: 384 of them),
    then the bias is the shift with the best balanced tool/no-tool accuracy averaged over the
    strata (the likelihood alone trades no-tool recall for confidence), and each group's cutoff
    of a convincing value score is chosen by coordinate ascent on that accuracy.

    Returns (no-tool weights and metric in similarity units, temperature, balanced accuracy)."""
    cutoffs = dict.fromkeys(GROUPS, 2.0)
    score, weights, metric = _fit_level(rows, cutoffs)
    for _ in range(2):
        for g in GROUPS:
            for c in CUTOFFS:
                trial = _fit_level(rows, cutoffs | {g: c})
                if trial[0] > score + 1e-9:
                    (score, weights, metric), cutoffs = trial, cutoffs | {g: c}
    weights |= {f"cutoff:{g}": c for g, c in cutoffs.items()}
    return weights, metric, _temperature(rows, weights, metric), score


METRIC_L2 = 1e-5  # by 5-fold cross-validation over dev cases grouped by tool (1e-4…3e-6 scanned)


def _fit_level(
    rows: list[ChoiceRow], cutoffs: dict[str, float], l2: float = 1e-3
) -> tuple[float, dict[str, float], list[float]]:
    """(balanced accuracy, no-tool weights) for one choice of cutoffs; see `fit_choice`."""
    names = list(no_tool_features([]))
    feats = torch.tensor(
        [list(no_tool_features(r[1], cutoffs, r[3], top_margin(r[0])).values()) for r in rows]
    )
    products = torch.stack([r[5] for r in rows])
    top = torch.tensor([max(r[0]) for r in rows])
    is_tool = torch.tensor([r[2] >= 0 for r in rows])
    top_right = torch.tensor([r[2] >= 0 and r[0].index(max(r[0])) == r[2] for r in rows])
    # Strata: style × one tool or several, so that requests offering one tool are not traded
    # for the many offering several (the margin feature only helps the latter).
    strata = [torch.tensor([_stratum(r) == k for r in rows]) for k in sorted({_stratum(r) for r in rows})]
    groups = [m & c for m in strata for c in (top_right, ~is_tool)]  # a wrong top tool: wrong either way
    sample = torch.zeros(len(rows))
    for m in groups:
        sample[m] = 1.0 / max(int(m.sum()), 1) / len(groups)
    y = top_right.float()
    # The similarity's weight is exp(log_scale) > 0: a closer match never argues against a tool.
    log_scale, w = torch.tensor(1.0, requires_grad=True), torch.zeros(feats.shape[1], requires_grad=True)
    v = torch.zeros(products.shape[1], requires_grad=True)
    opt = torch.optim.LBFGS([log_scale, w, v], max_iter=300)

    def closure() -> torch.Tensor:
        opt.zero_grad()
        logits = log_scale.exp() * top + feats @ w + products @ v
        logistic = torch.nn.functional.binary_cross_entropy_with_logits(logits, y, reduction="none")
        penalty = l2 * ((w**2).sum() + log_scale.exp() ** 2) + METRIC_L2 * (v**2).sum()
        loss = (sample * logistic).sum() + penalty
        loss.backward()
        return loss

    opt.step(closure)
    scale, w, v = float(log_scale.detach().exp()), w.detach(), v.detach()
    level = -(feats @ w + products @ v) / scale  # call a tool when top > level, in similarity units
    called = top[None, :] > level[None, :] + torch.tensor(SHIFTS)[:, None]
    balanced = torch.zeros(len(SHIFTS))
    for stratum in strata:  # the mean of the class accuracies a stratum has, then over strata
        shares = []
        if bool((stratum & is_tool).any()):  # a tool case is right only with the right tool on top
            shares.append((called & top_right)[:, stratum & is_tool].float().mean(-1))
        if bool((stratum & ~is_tool).any()):
            shares.append((~called)[:, stratum & ~is_tool].float().mean(-1))
        balanced += sum(shares) / len(shares) / len(strata)
    best = int(balanced.argmax())
    weights = {k: round(float(-v / scale), 4) for k, v in zip(names, w, strict=True)}
    weights["bias"] = round(weights["bias"] + SHIFTS[best], 4)
    return float(balanced[best]), weights, [round(float(-x / scale), 5) for x in v]


def _stratum(row: ChoiceRow) -> tuple[int, bool]:
    """(style, several tools offered)."""
    return row[4], len(row[0]) > 1


def choice_breakdown(
    rows: list[ChoiceRow], weights: dict[str, float], metric: list[float]
) -> dict[str, dict[str, float]]:
    """Per style and number of tools offered: the share of tool cases whose right tool is
    chosen, and of no-tool cases answered directly."""
    out = {}
    for style, several in sorted({_stratum(r) for r in rows}):
        tool_ok, none_ok = [], []
        for sims, cover, right, ref, _, product in (r for r in rows if _stratum(r) == (style, several)):
            called = max(sims) > no_tool_level(
                cover, weights, ref, top_margin(sims), metric_match(product, metric)
            )
            if right >= 0:
                tool_ok.append(called and sims.index(max(sims)) == right)
            else:
                none_ok.append(not called)
        out[f"{STYLES[style]}, {'several tools' if several else 'one tool'}"] = {
            "tool": _share(tool_ok),
            "no_tool": _share(none_ok),
        }
    return out


def _share(flags: list[bool]) -> float:
    return round(sum(flags) / max(len(flags), 1), 3)


def _temperature(rows: list[ChoiceRow], weights: dict[str, float], metric: list[float]) -> float:
    """Maximum likelihood of the right candidate, over the tools and "answer directly".

    A scan, not a gradient method: one parameter, and LBFGS without a line search once
    stopped at three times the best temperature."""

    def level(r: ChoiceRow) -> float:
        return no_tool_level(r[1], weights, r[3], top_margin(r[0]), metric_match(r[5], metric))

    data = [(torch.tensor([*r[0], level(r)]), r[2] if r[2] >= 0 else len(r[0])) for r in rows]
    scores = torch.nn.utils.rnn.pad_sequence([s for s, _ in data], batch_first=True, padding_value=-1e4)
    target = torch.tensor([t for _, t in data])

    def nll(temperature: float) -> float:
        logp = torch.log_softmax(scores / temperature, dim=1)
        return float(-logp[torch.arange(len(data)), target].mean())

    return min((round(0.01 * 1.05**k, 4) for k in range(80)), key=nll)


Group = tuple[list[tuple[dict[str, float], int]], int, str]  # (features, right) per value; absent
# ok (-1: the parameter is required); the parameter's group (argscore.group)


def tool_uses(case: Any) -> list[tuple[Candidate, list[dict[str, list[Any]]]]]:
    """Each tool the case's answer calls, with the arguments of each of its calls: a parallel
    case calls one tool several times, and a single call is right when it matches any of them."""
    calls: dict[str, list[dict[str, list[Any]]]] = {}
    for call in case.answers:
        for name, arguments in call.items():
            calls.setdefault(name, []).append(arguments)
    tools = {case.name_map.get(t.id): t for t in offered_tools(view(case))}
    return [(tools[name], answers) for name, answers in calls.items() if name in tools]


def value_rows(decider: Decider, cases: list[Any]) -> list[Group]:
    """Per parameter of each called tool: each candidate's features and whether BFCL accepts
    it (in any of the tool's calls), and whether leaving the parameter out is acceptable (-1: it
    is required)."""
    from bench.bfcl.checker import check_param

    groups: list[Group] = []
    for case in cases:
        text = view(case).last_user_text
        spans, index = extract(text, decider.filler.knowledge), TextIndex.of(text)
        for tool, answers in tool_uses(case):
            accepted = {k: [v for a in answers for v in a.get(k, [""])] for a in answers for k in a}
            params = [p for p in params_of(tool.parameters) if p.kind in ("string", "integer", "number")]
            by_param: dict[str, list[tuple[dict[str, float], int]]] = {p.name: [] for p in params}
            for pair in decider.filler._pairs(params, spans, index):
                p = pair.param
                right = accepted.get(p.name)
                ok = right is not None and check_param(p.name, pair.value, right, p.schema) is None
                by_param[p.name].append((pair.features, int(ok)))
            for p in params:
                absent = -1 if p.required else int("" in accepted.get(p.name, [""]))
                groups.append((by_param[p.name], absent, group(p)))
    return groups


def fit_values(groups: list[Group], l2: float = 1e-3) -> dict[str, float]:
    """Listwise: per parameter, a softmax over its candidates (plus "leave it out" for optional
    parameters, scored by a learned `absent:<group>` weight) should put its mass on acceptable
    ones."""
    usable = [g for g in groups if any(r[1] for r in g[0]) or g[1] == 1]
    names = sorted({k for rows, _, _ in usable for f, _ in rows for k in f})
    kinds = sorted({kind for *_, kind in usable})
    w = torch.zeros(len(names), requires_grad=True)
    absent_w = torch.zeros(len(kinds), requires_grad=True)
    data = [
        (
            torch.tensor([[f.get(n, 0.0) for n in names] for f, _ in rows] or [[0.0] * len(names)]),
            torch.tensor([bool(r) for _, r in rows] or [False]),
            bool(rows),
            absent,
            kinds.index(kind),
        )
        for rows, absent, kind in usable
    ]
    opt = torch.optim.LBFGS([w, absent_w], max_iter=300)

    def closure() -> torch.Tensor:
        opt.zero_grad()
        loss = l2 * (w**2).sum()
        for x, right, has_rows, absent, kind in data:
            scores = x @ w if has_rows else torch.full((1,), -1e4)
            mask = right.clone()
            if absent >= 0:
                scores = torch.cat([scores, absent_w[kind].view(1)])
                mask = torch.cat([mask, torch.tensor([absent == 1])])
            loss = loss + (torch.logsumexp(scores, 0) - torch.logsumexp(scores[mask], 0)) / len(data)
        loss.backward()
        return loss

    opt.step(closure)
    weights = {n: round(float(v), 4) for n, v in zip(names, w.detach(), strict=True)}
    return weights | {"bias": 0.0} | fit_absent(groups, weights)


def fit_absent(groups: list[Group], weights: dict[str, float]) -> dict[str, float]:
    """Per group, the score below which an optional parameter is left out: the threshold that
    gets most parameters right. The likelihood fit above sets it too high, trading right values
    for confidence in "absent"."""
    tops = [
        (max((linear(f, weights), bool(r)) for f, r in rows) if rows else None, absent, kind)
        for rows, absent, kind in groups
    ]

    def right(kind: str, threshold: float) -> int:
        ok = 0
        for top, absent, k in tops:
            if k != kind:
                continue
            if absent >= 0 and (top is None or top[0] < threshold):
                ok += absent == 1
            elif top is not None:
                ok += top[1]
        return ok

    kinds = sorted({kind for *_, kind in groups})
    return {f"absent:{k}": max((t / 4 for t in range(-8, 33)), key=lambda t: right(k, t)) for k in kinds}


LM_GRID = [(m, w) for w in (0.05, 0.1, 0.15) for m in (2.0, 3.0, 5.0)]  # (margin, weight)
LM_GAIN = 0.002  # a wider margin (more LM calls) must win by about two dev calls in a thousand


class MemoRerank:
    """`Decider.rerank` remembered per value: the grid below asks about the same values again."""

    def __init__(self, decider: Decider) -> None:
        self.decider = decider
        self.seen: dict[tuple[str, str, str, str], float] = {}

    def __call__(self, tool: Candidate, text: str, param: str, values: list[Any]) -> list[float]:
        keys = [(tool.id, text, param, json.dumps(v)) for v in values]
        missing = [v for v, k in zip(values, keys, strict=True) if k not in self.seen]
        if missing:
            for v, lm in zip(missing, self.decider.rerank(tool, text, param, missing), strict=True):
                self.seen[tool.id, text, param, json.dumps(v)] = lm
        return [self.seen[k] for k in keys]


def fit_value_lm(decider: Decider, by_style: list[list[Any]]) -> tuple[float, float, dict[str, float]]:
    """(margin, weight, dev full call by style): the grid point with the best full-call accuracy
    averaged over the styles, the LM never asked (weight 0.0) included. Whole calls, not single
    values: on single values the LM gains more (dev 0.63 -> 0.69 at weight 0.25) but trades
    calls that were right for values in calls still wrong (full call formal 0.48 -> 0.43)."""
    rerank = MemoRerank(decider)
    base = decider.cal
    best: tuple[float, float, float, dict[str, float]] = (-1.0, 0.0, 0.0, {})
    for margin, weight in [(0.0, 0.0), *LM_GRID]:
        _use(decider, replace(base, value_lm_margin=margin, value_lm_weight=weight))
        shares = {
            s: full_call_accuracy(decider, cases, rerank) for s, cases in zip(STYLES, by_style, strict=True)
        }
        print(f"  value LM margin {margin}, weight {weight}: dev full call {shares}", flush=True)
        mean = sum(shares.values()) / len(shares)
        if mean > best[0] + LM_GAIN:
            best = (mean, margin, weight, shares)
    _use(decider, base)
    return best[1], best[2], best[3]


def full_call_accuracy(decider: Decider, cases: list[Any], rerank: MemoRerank | None = None) -> float:
    """The share of tool uses whose arguments, filled given the right tool, match one call."""
    from bench.bfcl.checker import check_arguments

    ask = rerank or decider.rerank
    results = []
    for case in cases:
        text = view(case).last_user_text
        for tool, answers in tool_uses(case):
            args = decider.filler.fill(tool.parameters, text, rerank=partial(ask, tool, text)).arguments
            results.append(any(check_arguments(args, a, tool.parameters) is None for a in answers))
    return sum(results) / max(len(results), 1)


def main() -> None:
    from bench.bfcl.data import DEV_CATEGORIES, load_cases

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=int, default=None, help="cases per file (even stride)")
    parser.add_argument("--values-only", action="store_true", help="keep the choice calibration")
    parser.add_argument("--choice-only", action="store_true", help="keep the value calibration")
    parser.add_argument("--model", default="embedded", help="the LM: embedded, an HF directory, a .gguf")
    parser.add_argument("--output", type=Path, default=None, help="where the prior is written")
    parser.add_argument(
        "--encoder",
        choices=("english", "multilingual"),
        default="english",
        help="the sentence encoder to fit for",
    )
    parser.add_argument(
        "--no-value-lm",
        action="store_true",
        help="leave the LM out of the values (weight 0), skipping its grid",
    )
    args = parser.parse_args()
    multilingual = args.encoder == "multilingual"
    args.output = args.output or (PACKAGED_MULTILINGUAL if multilingual else PACKAGED)
    configure_torch()
    models = load_models(args.model)
    if multilingual:  # the engine loads e5 on the first request that needs it; here, now
        from shadowswitch.engines.local.runtime.multilingual import load_multilingual

        models.multilingual = load_multilingual()
    # The multilingual prior starts neutral: no weight of the English one is on its scale.
    start = Calibration() if multilingual else load_calibration(PACKAGED)
    if multilingual:  # not fitted: BFCL's dev files have too few paraphrased enum options
        start = replace(start, meaning_similarity=E5_MEANING)
    decider = Decider(models, start, multilingual=multilingual, bridge=False)  # e5 itself
    references = args.output.parent / "reference_tools.json"
    load = lambda name: load_cases(name, args.limit)  # noqa: E731
    call_cases = [c for n in CALL_SETS for c in load(n) if c.answers]
    formal = [c for n in FORMAL_SETS for c in load(n) if c.answers]
    cal = decider.cal
    shares: dict[str, float] = {}
    if not args.choice_only:  # values first: the no-tool features read the value scores
        groups = value_rows(decider, call_cases + formal)
        weights = fit_values(groups)
        print(f"values: {len(groups)} parameters; {weights}", flush=True)
        cal = _use(decider, replace(cal, value_weights=weights))
        margin, lm_weight, shares = (
            (0.0, 0.0, {}) if args.no_value_lm else fit_value_lm(decider, [call_cases, formal])
        )
        print(f"value LM: margin {margin}, weight {lm_weight}; dev full call {shares}", flush=True)
        cal = _use(decider, replace(cal, value_lm_margin=margin, value_lm_weight=lm_weight))
    balanced = -1.0
    if not args.values_only:
        dev_tools = [t.text for n in DEV_CATEGORIES for c in load(n) for t in offered_tools(view(c))]
        if not (multilingual and references.exists()):  # the English prior's list: the same texts
            reference.write_texts(dev_tools, references, REFERENCE_FITTED_ON)
        decider.reference = reference.ReferenceTools.load(decider.encoder, models.cache_dir, references)
        decider.chooser.reference = decider.reference.best
        cal = replace(cal, reference_tools=references)
        chat = call_cases + load("live_relevance") + load("live_irrelevance")
        unrelated, own = unrelated_tool_cases(decider, formal)
        rows = choice_rows(decider, chat, 0) + choice_rows(decider, formal + unrelated, 1, own)
        no_tool, metric, temp, balanced = fit_choice(rows)
        print(
            f"choice: {len(rows)} cases; no-tool {no_tool}; temperature {temp}; balanced {balanced:.3f}",
            flush=True,
        )
        print(f"choice by style: {choice_breakdown(rows, no_tool, metric)}", flush=True)
        fitted = replace(cal, no_tool_weights=no_tool, no_tool_metric=metric, choice_temperature=temp)
        cal = _use(decider, fitted)
    by_style = zip(STYLES, (call_cases, formal), strict=True)  # the choice fit leaves values alone
    full_call = shares or {style: full_call_accuracy(decider, cases) for style, cases in by_style}
    write_calibration(
        finished(cal, models, args.limit, balanced, full_call, decider.encoder.name), args.output
    )
    print(json.dumps({"balanced": balanced, "dev_full_call": full_call}))


def _use(decider: Decider, cal: Calibration) -> Calibration:
    decider.cal = decider.filler.cal = decider.chooser.cal = cal
    return cal


REFERENCE_FITTED_ON = (
    "the tool descriptions of the BFCL v4 development files (live_*, parallel*, exec_*); never the test files"
)


def finished(
    cal: Calibration,
    models: LoadedModels,
    limit: int | None,
    balanced: float,
    full_call: dict[str, float],
    encoder: str | None = None,
) -> Calibration:
    """The fitted weights as a prior: the models they fit (`encoder`: the one the decider read
    with, default the models' own), the data and how."""
    sample = "all cases" if limit is None else f"{limit} cases per file (even stride)"
    fitted_on = (
        "BFCL v4 development files only: live_simple, live_multiple, live_relevance, live_irrelevance, "
        f"parallel, parallel_multiple and the retired exec_* files, {sample}; never the test files "
        "(simple_python, multiple, irrelevance)"
    )
    return replace(
        cal,
        fitted_for=FittedFor(encoder or models.encoder_id, models.lm_id),
        fitted_on=fitted_on,
        note=_note(balanced, full_call),
    )


def _note(balanced: float, full_call: dict[str, float]) -> str:
    choice = f"{balanced:.3f}" if balanced >= 0 else "(not refitted in this run)"
    calls = ", ".join(f"{style} {share:.3f}" for style, share in full_call.items())
    return (
        "Values: listwise "
        "softmax per parameter; absent:<group> is the score below which an optional parameter is "
        "left out, the threshold that gets most dev parameters right; value_lm_margin/weight: "
        "the grid point (LM never asked included) with the best dev full call. Dev full-call accuracy "
        f"(arguments given the right tool, matching one of its calls) {calls}. Choice: the no-tool "
        "level (bias, unfilled, reference, margin over the runner-up, no_tool_metric over the "
        "product of the request's and the top tool's vectors; cutoff of a convincing value "
        "score by coordinate ascent) has the direction of a logistic regression and the bias shift "
        "with the best dev balanced tool/no-tool accuracy, averaged over chat (live_*) and formal "
        f"(parallel*, exec_*, against unrelated tools) styles × one tool or several, {choice}; "
        "choice_temperature then by likelihood. " + CASCADE_NOTE
    )


CASCADE_NOTE = (
    "Cascade: cascade_margin/lm_weight from a grid on 40 live_multiple + 30 live_irrelevance cases: "
    "every LM weight > 0 lowered dev accuracy (e.g. margin<0.3, w=1: 0.775->0.65 tool, 0.567->0.433 "
    "no-tool), so the hybrid scorer does not consult the LM (cascade_margin 0.0) with the embedded "
    "SmolLM2-135M; refit for a stronger model."
)


if __name__ == "__main__":
    main()
