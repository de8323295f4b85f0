"""Whether optional parameters are set as the upstream sets them, on a kept bench database.

Each exemplar keeps, per optional parameter of the upstream's tool that the text offered a value,
whether the engine set it and whether the upstream left it out, set that value or another
(`learning/optional.py`). For each tool and parameter this reports how often the engine's choice
agreed with the upstream's, and how often the learned weights' does, each decision judged by
weights fitted without its fold (as a learning run judges them; kept only where they gain at
least `GAIN`). A parameter the upstream set to another value agrees neither way.

`calls`: the whole calls of the upstream's tool the engine filled, agreeing with the upstream's
as a learning run's replay counts them (`agreement.call_agreed`) under the values learned without
and with the weights, each fifth of the pairs judged by what the other four taught.

    python -m bench.optional_setting --db /tmp/bfcl.db --task bfcl_repeated
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
from sqlmodel import Session, col, create_engine, select

from bench.tuning_depth import save
from shadowswitch.learning import rules
from shadowswitch.learning.challenger import to_pair
from shadowswitch.learning.optional import Example, agrees, cross_gain
from shadowswitch.learning.values import GAIN, MIN, NEWEST
from shadowswitch.store.tables import Exemplar


def measured(db: str, task: str) -> dict[str, Any]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT label, optional FROM exemplar WHERE task_type = ? AND NOT excluded ORDER BY id", (task,)
        ).fetchall()
    seen: dict[str, list[Example]] = {}
    for tool, raw in rows:
        for param, r in (((json.loads(raw) if raw else None) or {}).get("params") or {}).items():
            seen.setdefault(f"{tool}.{param}", []).append((r.get("features") or {}, r["set"], r["filled"]))
    params, total = {}, Counter[str]()
    for key, examples in sorted(seen.items(), key=lambda kv: -len(kv[1])):
        engine = sum(agrees(filled, done) for _, done, filled in examples)
        gain = cross_gain(examples[-NEWEST:]) if len(examples) >= MIN else 0
        learned = engine + gain if gain >= GAIN else engine
        done = Counter(d for _, d, _ in examples)
        params[key] = {"decisions": len(examples), **done, "engine_agreed": engine, "learned_agreed": learned}
        total.update({"decisions": len(examples), **done, "engine_agreed": engine, "learned_agreed": learned})
    return {"pairs": len(rows), "total": dict(total), "calls": calls(db, task), "params": params}


def calls(db: str, task: str) -> dict[str, int]:
    with Session(create_engine(f"sqlite:///{db}")) as session:
        query = select(Exemplar).where(Exemplar.task_type == task, col(Exemplar.excluded).is_(False))
        pairs = [to_pair(r) for r in session.exec(query.order_by(col(Exemplar.id))).all()]
    out = Counter[str]()
    bounds = np.linspace(0, len(pairs), 6).astype(int).tolist()
    for start, end in itertools.pairwise(bounds):
        taught, judged = rules.calls_of([*pairs[:start], *pairs[end:]])
        without, learned = rules.learned_rules(taught), rules.learned_rules(taught, judged)
        for p in pairs[start:end]:
            if p.label != p.local_tool or p.label == "__no_tool__":
                continue
            before, after = p.call(*without), p.call(*learned)
            out.update({"judged": int(not math.isnan(before)), "agreed_before": int(before == 1)})
            out.update({"agreed_after": int(after == 1)})
    return dict(out)


def main() -> None:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--db", required=True, help="a kept bench database file (SHADOWSWITCH_BENCH_KEEP_DB)")
    parser.add_argument("--task", required=True)
    parser.add_argument("--out", default="bench/results/optional_setting.json")
    args = parser.parse_args()
    result = measured(args.db, args.task)
    print(json.dumps({**result["total"], "calls": result["calls"]}))
    save(Path(args.out), args.task, result)


if __name__ == "__main__":
    main()
