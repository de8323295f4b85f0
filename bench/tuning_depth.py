"""How many of the encoder's layers to tune, judged on the same pairs twice.

A kept bench database (`SHADOWSWITCH_BENCH_KEEP_DB`) holds the shadow stream's pairs and, after
them, the test steps the engine fell back on (stored excluded: learning never reads them). For
each tuning (layers tuned, pairs per tuning) this reports:

- `certificate`: the first learning run again, as the product runs it (on a copy with the served
  state set aside), and the challenger's certificate on its cross-fitted held-out pairs;
- `unseen`: the test steps decided by a state fitted as that run fits the challenger it would
  promote (the stream's pairs but the newest quarter, the encoder tuned on them), served and
  right at each threshold: what the tuning does for words the stream never showed (the help desk
  test steps' phrasings).

    python -m bench.tuning_depth --db /tmp/helpdesk.db --task helpdesk --tunings 2:1500,3:3000,4:3000
"""

from __future__ import annotations

import argparse
import functools
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.certificate_bettor import first_run

THRESHOLDS = (0.99, 0.98, 0.97, 0.95, 0.9)
TARGET = 0.95


@contextmanager
def tuning(layers: int, most: int) -> Iterator[None]:
    """The trainer's tuning with `layers` top layers and at most `most` pairs an epoch."""
    from shadowswitch.engines.local.runtime import finetune

    kept = finetune.tune
    finetune.tune = functools.partial(kept, layers=layers, most=most)
    try:
        yield
    finally:
        finetune.tune = kept


def certificate(db_file: str, task: str) -> dict[str, Any]:
    return dict(first_run(db_file, task)["evaluation"]["challenger"])


def unseen(db_file: str, task: str) -> dict[str, Any]:
    from sqlmodel import Session, select

    from shadowswitch.learning import challenger, fillers, tuning
    from shadowswitch.learning.fit import args_rate, fit
    from shadowswitch.learning.memory import floor_for
    from shadowswitch.store import db
    from shadowswitch.store.tables import Exemplar

    with Session(db.make_engine(f"sqlite:///{db_file}")) as session:
        query = select(Exemplar).where(Exemplar.task_type == task).order_by(Exemplar.id)  # type: ignore[arg-type]
        rows = list(session.exec(query))
    stream = [r for r in rows if not r.excluded]
    tests = [r for r in rows if (r.id or 0) > (stream[-1].id or 0)]
    if not tests:  # the bench stored no test step the engine fell back on (BFCL's are not kept)
        return {"test_steps": 0}
    pairs = [challenger.to_pair(r) for r in fillers.kept(stream)]
    train = pairs[: len(pairs) - challenger.holdout_size(len(pairs), len(pairs))]  # as the first run
    reading = tuning.tuning_for(stream + tests)
    tuned = reading.tune(train) if reading is not None and reading.enough(train) else None
    read = reading.reader(tuned) if reading is not None and tuned is not None else list
    floor = floor_for(stream[0].encoder)
    fitted = fit(read(train), TARGET, floor)
    spec = challenger.Spec(1, read(train), fitted.weight, 0.0, 0.0, floor, fitted.head, fitted.deferral)
    test = [challenger.to_pair(r) for r in tests]
    outcomes, _ = challenger.judge(spec, read(test), args_rate(train))
    steps = [(p.label != "__no_tool__", o) for p, o in zip(test, outcomes, strict=True)]
    at = {}
    for threshold in THRESHOLDS:
        served = [(call, o) for call, o in steps if not o.blocked and o.confidence >= threshold]
        at[str(threshold)] = {
            "served": len(served),
            "right": sum(o.correct == 1 for _, o in served),
            "calls_served": sum(call for call, _ in served),
            "calls_right": sum(call and o.correct == 1 for call, o in served),
        }
    calls = sum(call for call, _ in steps)
    return {"test_steps": len(test), "tool_call_steps": calls, "tuned": tuned is not None, "at": at}


def main() -> None:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--db", required=True, help="a kept bench database file")
    parser.add_argument("--task", required=True)
    parser.add_argument("--tunings", default="2:1500,4:3000", help="layers:pairs per epoch, comma-separated")
    parser.add_argument("--out", default="bench/results/tuning_depth.json")
    args = parser.parse_args()
    runs = []
    for item in args.tunings.split(","):
        layers, most = (int(x) for x in item.split(":"))
        with tuning(layers, most):
            run = {"layers": layers, "pairs_per_epoch": most, "certificate": certificate(args.db, args.task)}
            run["unseen"] = unseen(args.db, args.task)
        print(json.dumps(run))
        runs.append(run)
    save(Path(args.out), args.task, runs)


def save(out: Path, task: str, result: Any) -> None:
    """`result` under `task` in the results file, the other task types' kept."""
    found = json.loads(out.read_text()) if out.exists() else {}
    found[task] = result
    out.write_text(json.dumps(found, indent=1) + "\n")


if __name__ == "__main__":
    main()
