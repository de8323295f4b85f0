"""The certificate's bettor before and after its prior, side by side.

`simulate`: streams at a 95% target: when a clean run certifies, where one or two misses still let
a region certify, the median stream at 2% and 3% misses, and false certification at the target.
`replay`: a kept bench database (`SHADOWSWITCH_BENCH_KEEP_DB`): the challenger's cross-fitted
decisions of its first `--pairs` pairs (frozen encoder), certified by both bettors.

    python -m bench.certificate_bettor simulate
    python -m bench.certificate_bettor replay --db /tmp/helpdesk.db --task helpdesk --pairs 912
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from shadowswitch.learning import certificate

TARGET = 0.95
BAR = math.log(20)
BETTORS = {"before: one agreeing pseudo-pair": (1.0, 1.0), "now: the prior": (certificate.PRIOR, None)}


@contextmanager
def bettor(prior: float, rate: float | None) -> Iterator[None]:
    """The certificate's bettor with `prior` pseudo-pairs at `rate` (None: the product's rate)."""
    kept = certificate.PRIOR, certificate.prior_rate
    certificate.PRIOR = prior
    if rate is not None:
        certificate.prior_rate = lambda _target: rate
    certificate.pairs_needed.cache_clear()  # it remembers the bettor it was asked of
    try:
        yield
    finally:
        certificate.PRIOR, certificate.prior_rate = kept
        certificate.pairs_needed.cache_clear()


def simulate(streams: int = 200, seed: int = 0) -> dict[str, Any]:
    def certifies(xs: np.ndarray[Any, Any]) -> bool:
        return bool(certificate.log_wealth(xs.tolist(), TARGET)[-1] >= BAR)

    out: dict[str, Any] = {}
    for name, (prior, rate) in BETTORS.items():
        with bettor(prior, rate):
            rng = np.random.default_rng(seed)
            path = certificate.log_wealth([1.0] * 400, TARGET)
            row: dict[str, Any] = {"clean_run": int(np.argmax(path >= BAR)) + 1}
            for misses in (1, 2):
                wherever = next(
                    n
                    for n in range(60, 600, 5)
                    if all(certifies(_with_misses(n, misses, at)) for at in range(0, n - misses + 1, 3))
                )
                row[f"{misses}_miss_certifies_wherever_at"] = wherever
            for rate_ in (0.98, 0.97):
                firsts = []
                for _ in range(streams):
                    xs = (rng.random(3000) < rate_).astype(float)
                    hit = np.flatnonzero(certificate.log_wealth(xs.tolist(), TARGET) >= BAR)
                    firsts.append(int(hit[0]) + 1 if hit.size else 3001)
                row[f"median_pairs_at_{rate_}"] = int(np.median(firsts))
            at_target = [(rng.random(1000) < TARGET).astype(float).tolist() for _ in range(streams * 5)]
            false = sum(bool((certificate.log_wealth(xs, TARGET) >= BAR).any()) for xs in at_target)
            row["false_certification"] = round(false / (streams * 5), 4)
        out[name] = row
    return out


def _with_misses(n: int, misses: int, at: int) -> np.ndarray[Any, Any]:
    xs = np.ones(n)
    for k in range(misses):
        xs[(at + 40 * k) % n] = 0.0
    return xs


def replay(db_url: str, task: str, pairs_to: int) -> dict[str, Any]:
    from shadowswitch.learning import challenger, regions
    from shadowswitch.learning.fit import fit
    from shadowswitch.learning.memory import floor_for
    from shadowswitch.policy.models import Engine
    from shadowswitch.store import db
    from shadowswitch.store.exemplars import ExemplarStore

    store = ExemplarStore(db.make_engine(db_url))
    rows = [r for r in challenger._usable(store, task) if (r.id or 0) <= pairs_to]
    pairs = [challenger.to_pair(r) for r in rows]
    spec = challenger.served_spec(None, pairs, Engine(target_agreement=TARGET))
    holdout = min(len(pairs), max(challenger.MIN_HOLDOUT, int(len(pairs) * challenger.HOLDOUT_SHARE)))
    floor = floor_for(rows[0].encoder)
    fitted = fit(pairs[:-holdout][-challenger.MAX_FIT :], TARGET, floor)
    judged = challenger.cross_fitted(pairs, holdout, (spec, pairs), (fitted, list), TARGET, floor)
    out: dict[str, Any] = {"task": task, "usable_pairs": len(pairs)}
    for name, (prior, rate) in BETTORS.items():
        with bettor(prior, rate):
            cert = regions.certificate_of(judged[0][0], TARGET)
        steps = [
            (s.threshold, s.served, round(s.served - s.agreed), round(s.evidence, 1)) for s in cert.steps
        ]
        out[name] = {**cert.to_json(), "steps (threshold, served, misses, evidence)": steps}
    return out


def main() -> None:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    sub = parser.add_subparsers(dest="mode", required=True)
    sub.add_parser("simulate", help="simulated streams at a 95% target")
    kept = sub.add_parser("replay", help="a kept bench database's cross-fitted decisions")
    kept.add_argument("--db", required=True, help="the database file")
    kept.add_argument("--task", required=True)
    kept.add_argument("--pairs", type=int, required=True, help="pairs up to this id (the checkpoint)")
    args = parser.parse_args()
    found = simulate() if args.mode == "simulate" else replay(f"sqlite:///{args.db}", args.task, args.pairs)
    print(json.dumps(found, indent=1))


if __name__ == "__main__":
    main()
