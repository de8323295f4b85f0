"""The certificate's bettor before and after its prior, side by side.

`simulate`: streams at a 95% target: when a clean run certifies, where one or two misses still let
a region certify, the median stream at 2% and 3% misses, and false certification at the target.
`replay`: a kept bench database (`SHADOWSWITCH_BENCH_KEEP_DB`): the challenger's cross-fitted
decisions of its first `--pairs` pairs (frozen encoder), certified by both bettors.
`tests`: a kept bench database's first learning run again, as the product runs it (on a copy with
the served state set aside, the encoder tuned), and per threshold its region tested three ways:
the product's e-process (order-dependent), an order-free mixture e-process (the likelihood ratio
mixed over agreements above the target; as valid at any time), and the exact binomial test, valid
only for one look at a fixed number of pairs (learning looks again at every run).

    python -m bench.certificate_bettor simulate
    python -m bench.certificate_bettor replay --db /tmp/helpdesk.db --task helpdesk --pairs 912
    python -m bench.certificate_bettor tests --db /tmp/shop.db --task shop
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
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


def mixture(agreed: int, n: int, a: float, target: float = TARGET) -> float:
    """log E of an order-free e-process against "agreement ≤ target": the likelihood ratio of
    `agreed` of `n` pairs mixed over agreements p > target, Beta(a, 1) truncated to (target, 1]
    (for each such p the ratio is a supermartingale under the null, so the mixture is too)."""
    from scipy import special

    tail = math.log(1 - special.betainc(a, 1.0, target)) + special.betaln(a, 1.0)
    upper = special.betaln(agreed + a, n - agreed + 1) + math.log(
        max(1 - special.betainc(agreed + a, n - agreed + 1, target), 1e-300)
    )
    return upper - tail - agreed * math.log(target) - (n - agreed) * math.log(1 - target)


def first_run(db_file: str, task: str) -> dict[str, Any]:
    """A kept database's first learning run again, dry, on a copy with the served state and its
    certificate set aside: what `shadowswitch learn` does, as the product runs it."""
    import shutil
    import sqlite3
    import tempfile

    from shadowswitch.learning import challenger
    from shadowswitch.policy.models import Engine
    from shadowswitch.store import db
    from shadowswitch.store.exemplars import ExemplarStore

    copy = Path(tempfile.mkdtemp()) / "copy.db"
    shutil.copy(db_file, copy)
    with sqlite3.connect(copy) as con:  # the first learning run: no served state, no certificate
        con.execute("delete from engine_state")
        con.execute("delete from certificate")
    try:
        store = ExemplarStore(db.make_engine(f"sqlite:///{copy}"))
        return challenger.learn(store, task, Engine(target_agreement=TARGET), actor="bench", dry_run=True)
    finally:
        shutil.rmtree(copy.parent)


def tests(db_file: str, task: str) -> dict[str, Any]:
    from scipy import stats

    from shadowswitch.learning import promotion

    seen: list[Any] = []
    judge = promotion.verdict

    def kept(outcomes: Any, *args: Any) -> Any:
        seen.extend(o for o in outcomes if not o.blocked)
        return judge(outcomes, *args)

    promotion.verdict = kept
    try:
        first_run(db_file, task)
    finally:
        promotion.verdict = judge

    rows = []
    for threshold in certificate.GRID[:12]:
        xs = [o.correct for o in seen if o.confidence >= threshold]
        if not xs:
            continue
        agreed = round(sum(xs))
        rows.append(
            {
                "threshold": threshold,
                "served": len(xs),
                "misses": len(xs) - agreed,
                "e_process": round(math.exp(float(certificate.log_wealth(xs, TARGET)[-1])), 1),
                "mixture_uniform": round(math.exp(mixture(agreed, len(xs), 1.0)), 1),
                "mixture_beta40": round(math.exp(mixture(agreed, len(xs), 40.0)), 1),
                "binomial_p": round(float(stats.binom.cdf(len(xs) - agreed, len(xs), 1 - TARGET)), 4),
            }
        )
    return {"task": task, "held_out": len(seen), "bar": round(math.exp(BAR)), "thresholds": rows}


def main() -> None:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    sub = parser.add_subparsers(dest="mode", required=True)
    sub.add_parser("simulate", help="simulated streams at a 95%% target")
    kept = sub.add_parser("replay", help="a kept bench database's cross-fitted decisions")
    kept.add_argument("--db", required=True, help="the database file")
    kept.add_argument("--task", required=True)
    kept.add_argument("--pairs", type=int, required=True, help="pairs up to this id (the checkpoint)")
    again = sub.add_parser("tests", help="a kept bench database's first learning run, three tests")
    again.add_argument("--db", required=True, help="the database file")
    again.add_argument("--task", required=True)
    args = parser.parse_args()
    if args.mode == "simulate":
        found = simulate()
    elif args.mode == "tests":
        found = tests(args.db, args.task)
    else:
        found = replay(f"sqlite:///{args.db}", args.task, args.pairs)
    print(json.dumps(found, indent=1))


if __name__ == "__main__":
    main()
