"""The pointer's prior, fitted and judged on development traffic without the models.

For every upstream call of the help desk's and the travel agent's recorded steps (the shop agent's
stream steps, and BFCL's development files), each text or number argument is offered the request's
memory values (`arguments/pointer.offers`, with the hand-set prior). Per traffic: the share of
arguments whose upstream value is among the offers (`offered`), whose value the prior puts first
(`top1`), and, at the serving rule (`recall.SERVE`, `recall.MARGIN`), how many it would serve and
how many of those are right. Then a conditional logit (`learning/values.fit`, offset: the prior's
score) is fitted on the first `--train` share of each traffic's calls and judged on the rest, the
way a state's learned pointer is (`values.fit_pointer`); `--absolute` fits from zero offsets
instead and prints the weights a new prior could take.

    python -m bench.pointer_prior [--traffic helpdesk shop travel bfcl] [--train 0.7] [--absolute]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from typing import Any

from bench.arguments_eval import Item, bfcl, helpdesk, shop, travel
from shadowswitch.engines.local.arguments.memory import MemoryReader
from shadowswitch.engines.local.arguments.params import params_of
from shadowswitch.engines.local.arguments.pointer import SCALAR_KINDS, offers
from shadowswitch.engines.local.arguments.recall import MARGIN, SERVE
from shadowswitch.engines.local.arguments.today import stated_today
from shadowswitch.learning.values import fit
from shadowswitch.request import ChatView, normalise

Example = tuple[list[dict[str, float]], int, int]  # features (with `base`), -1, the upstream's index


def examples_of(items: Sequence[Item]) -> list[Example | None]:
    """Per upstream text or number argument, the memory's offers; None when none matches."""
    reader = MemoryReader()
    out: list[Example | None] = []
    for item in items:
        view = ChatView.parse({"model": "agent", **item.request})
        tool = view.tool(item.tool)
        if tool is None:
            continue
        memory = reader.read(view, stated_today(view))
        for p in params_of(tool.parameters):
            if p.kind not in SCALAR_KINDS or p.name not in item.arguments:
                continue
            found = offers(p, memory)
            keys = [normalise(o.value) for o in found]
            wanted = normalise(item.arguments[p.name])
            match = keys.index(wanted) if wanted in keys else -1
            out.append(([{**o.features, "base": o.score} for o in found], -1, match) if match >= 0 else None)
    return out


def judged(examples: Sequence[Example | None], weights: Mapping[str, float]) -> dict[str, Any]:
    """Offered, first, and at the serving rule served and right."""
    tally = {"arguments": len(examples), "offered": 0, "top1": 0, "served": 0, "right": 0}
    for example in examples:
        if example is None:
            continue
        features, _, match = example
        tally["offered"] += 1
        scores = sorted(((_score(f, weights), i) for i, f in enumerate(features)), reverse=True)
        first = scores[0][1]
        tally["top1"] += int(first == match)
        sure = scores[0][0] >= SERVE and (len(scores) < 2 or scores[0][0] - scores[1][0] >= MARGIN)
        tally["served"] += int(sure)
        tally["right"] += int(sure and first == match)
    return tally


def _score(features: Mapping[str, float], weights: Mapping[str, float]) -> float:
    base = features.get("base", 0.0)
    return base + sum(weights.get(k, 0.0) * v for k, v in features.items())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--traffic", nargs="+", choices=("helpdesk", "shop", "travel", "bfcl"), default=["helpdesk", "travel"]
    )
    parser.add_argument("--train", type=float, default=0.7, help="share of each traffic's calls fitted on")
    parser.add_argument("--bfcl-limit", type=int, default=40)
    parser.add_argument("--absolute", action="store_true", help="fit from zero offsets (a new prior)")
    args = parser.parse_args()
    sources = {"helpdesk": helpdesk, "shop": shop, "travel": travel, "bfcl": lambda: bfcl(args.bfcl_limit)}
    train: list[Example] = []
    tests: dict[str, list[Example | None]] = {}
    for name in args.traffic:
        examples = examples_of(list(sources[name]()))
        cut = int(len(examples) * args.train)
        train += [e for e in examples[:cut] if e is not None and len(e[0]) >= 2]
        tests[name] = examples[cut:]
        print(name, "all", judged(examples, {}))
    if args.absolute:
        train = [([{k: v for k, v in f.items() if k != "base"} for f in fs], p, m) for fs, p, m in train]
    weights = fit(train)
    print("fitted on", len(train), json.dumps(weights, sort_keys=True))
    for name, examples in tests.items():
        if args.absolute:
            examples = [
                None if e is None else ([{**f, "base": 0.0} for f in e[0]], e[1], e[2]) for e in examples
            ]
        print(name, "held out, prior ", judged(tests[name], {}))
        print(name, "held out, fitted", judged(examples, weights))


if __name__ == "__main__":
    main()
