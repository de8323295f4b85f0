"""Learners side by side on the same stored pairs: the curve without the proxy.

`shadowswitch bench learning` measures the product end to end, but each run collects its own pairs
on a loaded machine (shadow runs are skipped under load), so two runs do not see the same stream.
This replays one stream of exemplars (a database kept by `SHADOWSWITCH_BENCH_KEEP_DB`) through
each learner: the newest pairs are held out once, each learner is fitted on the first N of the
others, and decides the held-out pairs as `shadowswitch learn` judges them (`challenger.judge`).

    python -m bench.learning_offline DB TASK [--target 0.95] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from shadowswitch.learning import challenger, utility_gate
from shadowswitch.learning.fit import Pair, args_rate, fit
from shadowswitch.learning.memory import floor_for
from shadowswitch.store import db
from shadowswitch.store.exemplars import ExemplarStore

CHECKPOINTS = (50, 100, 200, 400, 1000)
LEARNERS = {"vote": False, "head": True}  # fit(head=...)


def held_out(pairs: list[Pair], share: float = 0.25, least: int = 40) -> tuple[list[Pair], list[Pair]]:
    n = max(least, int(len(pairs) * share))
    return pairs[:-n], pairs[-n:]


def point(
    pool: list[Pair], test: list[Pair], n: int, target: float, floor: float, head: bool
) -> dict[str, Any]:
    train = pool[:n]
    start = time.perf_counter()
    fitted = fit(train, target, floor, head=head)
    took = time.perf_counter() - start
    spec = challenger.Spec(1, train, fitted.weight, fitted.min_confidence, 0.0, floor, fitted.head)
    outcomes, flags = challenger.judge(spec, test, args_rate(train))
    figures = utility_gate.figures(outcomes, flags)
    right = sum(o.correct for o, f in zip(outcomes, flags, strict=True) if f)
    return {
        **figures,
        "train_pairs": len(train),
        "right_of_all": round(right / len(test), 4),
        "head": fitted.head is not None,
        "weight": fitted.weight,
        "threshold": fitted.min_confidence,
        "cv_coverage": fitted.coverage,
        "cv_agreement": fitted.agreement,
        "fit_s": round(took, 2),
    }


def run(url: str, task: str, target: float) -> dict[str, Any]:
    store = ExemplarStore(db.make_engine(url))
    rows = challenger._usable(store, task)
    pairs = [challenger.to_pair(r) for r in rows]
    pool, test = held_out(pairs)
    floor = floor_for(rows[0].encoder)
    out: dict[str, Any] = {
        "task_type": task,
        "pairs": len(pairs),
        "held_out": len(test),
        "target": target,
        "learners": {},
    }
    sizes = [n for n in CHECKPOINTS if n <= len(pool)] + ([len(pool)] if len(pool) not in CHECKPOINTS else [])
    for name, head in LEARNERS.items():
        out["learners"][name] = [point(pool, test, n, target, floor, head) for n in sorted(set(sizes))]
        for row in out["learners"][name]:
            print(name, json.dumps(row))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("db", help="a database URL or a SQLite file")
    parser.add_argument("task")
    parser.add_argument("--target", type=float, default=0.95)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    url = args.db if "://" in args.db else f"sqlite:///{args.db}"
    result = run(url, args.task, args.target)
    if args.out:
        args.out.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
