"""Learned value rankings offline: does a ranking fitted on an agent's earlier calls pick the
upstream's value more often on its later ones?

For every step of development traffic where the upstream called a tool, the engine fills the
upstream's tool in process (as learning's `fill_tool` does) and each argument is described as an
exemplar describes it (`exemplar.offered_entry`: the offered values' features, the engine's pick, the
upstream's). The newest `--test` share of each traffic's steps is judged; the first 50, 100, 200,
400... of the others, in order, fit the rankings (`learning/values.fit_rankings`). Judged argument
by argument, among the arguments whose value the engine read from the last user turn's offered
values:

- `engine`: the engine's pick is the upstream's value;
- `ranked`: the learned ranking's pick is (the engine's where no ranking is learned);
- `fixed` / `broken`: arguments the ranking turned right / wrong;
- `offered`: the upstream's value was among the values offered (any ranking could pick it).

    python -m bench.value_ranking [--traffic helpdesk travel bfcl] [--test 0.3]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from bench.arguments_eval import BATCH, Item, bfcl, helpdesk, policy_for, travel
from shadowswitch.engines.local.arguments.grounding import GROUNDED
from shadowswitch.learning.exemplar import offered_entry
from shadowswitch.learning.values import fit_rankings, ranked_pick
from shadowswitch.request import ChatView

OUTPUT = Path("bench/results/value_ranking.json")
CHECKPOINTS = (50, 100, 200, 400, 1000)


def described(items: list[Item], engine: Any) -> list[tuple[str, dict[str, Any]]]:
    """(tool, {param: {"offered": ...}}) per item, as exemplars keep them."""
    from shadowswitch.engines.local.decider import Job

    policies = {s: policy_for(s) for s in {i.scorer for i in items}}
    out: list[tuple[str, dict[str, Any]]] = []
    for start in range(0, len(items), BATCH):
        chunk = items[start : start + BATCH]
        views = [ChatView.parse({"model": "agent", **i.request}) for i in chunk]
        jobs = [Job(v, policies[i.scorer], None, i.tool) for v, i in zip(views, chunk, strict=True)]
        if start % (BATCH * 25) == 0:
            print(f"{start + len(chunk)}/{len(items)}", file=sys.stderr, flush=True)
        for item, choice in zip(chunk, engine.engine.decide_batch(jobs), strict=True):
            args: dict[str, Any] = {}
            for param, value in item.arguments.items():
                source = (choice.sources or {}).get(param) or {}
                read = (choice.arguments or {})[param] if source.get("source") in GROUNDED else None
                filled = None if read is None else (read,)
                found = offered_entry(choice.trace.values.get(param), filled, value)
                if found is not None:
                    args[param] = {"offered": found}
            out.append((item.tool, args))
    return out


def judge(calls: list[tuple[str, dict[str, Any]]], test_share: float) -> list[dict[str, Any]]:
    """One row per training size: the rankings learned and the judged arguments' tallies."""
    cut = len(calls) - int(len(calls) * test_share)
    sizes = [n for n in CHECKPOINTS if n < cut] + [cut]
    return [_judged(calls[:n], calls[cut:]) for n in sizes]


def _judged(
    train: list[tuple[str, dict[str, Any]]], test: list[tuple[str, dict[str, Any]]]
) -> dict[str, Any]:
    rankings = fit_rankings(train)
    tally = {"engine": 0, "ranked": 0, "fixed": 0, "broken": 0, "judged": 0, "offered": 0}
    for tool, args in test:
        for param, entry in args.items():
            features, picked, match = (entry["offered"][k] for k in ("features", "picked", "match"))
            if picked < 0:
                continue
            weights = rankings.get(tool, {}).get(param)
            chosen = ranked_pick(features, picked, weights) if weights else picked
            tally["judged"] += 1
            tally["offered"] += int(match >= 0)  # the upstream's value was among those offered
            tally["engine"] += int(picked == match)
            tally["ranked"] += int(chosen == match)
            tally["fixed"] += int(chosen == match and picked != match)
            tally["broken"] += int(chosen != match and picked == match)
    learned = {tool: sorted(params) for tool, params in rankings.items()}
    return {"trained_on": len(train), "tested_on": len(test), "rankings": learned, **tally}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--traffic", nargs="+", choices=("helpdesk", "travel", "bfcl"), default=["helpdesk", "bfcl"]
    )
    parser.add_argument(
        "--test", type=float, default=0.3, help="share of each traffic's calls judged, the newest"
    )
    parser.add_argument("--bfcl-limit", type=int, default=40, help="cases per BFCL file (even stride)")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args()

    from shadowswitch.engines.local import create_engine

    sources = {"helpdesk": helpdesk, "travel": travel, "bfcl": lambda: bfcl(args.bfcl_limit)}
    engine = create_engine("embedded")
    started = time.perf_counter()
    results: dict[str, Any] = {}
    try:
        for name in args.traffic:
            results[name] = judge(described(list(sources[name]()), engine), args.test)
            for row in results[name]:
                print(name, {k: v for k, v in row.items() if k != "rankings"}, flush=True)
    finally:
        engine.close()
    command = "python -m bench.value_ranking " + " ".join(f"--traffic {t}" for t in args.traffic)
    out = {"command": f"{command} --test {args.test}", "seconds": round(time.perf_counter() - started, 1)}
    args.output.write_text(json.dumps({**out, "traffic": results}, indent=1) + "\n")


if __name__ == "__main__":
    main()
