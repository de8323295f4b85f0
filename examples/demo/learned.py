"""The demo's learning step: learn from the shadow pairs now (as `shadowswitch learn` does) and
say what the certificate rests on. Canary serves only inside a certified region."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from examples.demo.servers import TASK_TYPE

SHADOW_PASSES = 3  # shadow passes over the task set, at most, before canary whatever the certificate


def learn_now(db_url: str, policies: Path) -> dict[str, Any]:
    """One learning run of the travel task type, once the shadow runs still in flight have stored
    their pairs; its result, with the certificate in force."""
    from shadowswitch.learning import challenger
    from shadowswitch.learning.versions import versions
    from shadowswitch.policy import load_policies
    from shadowswitch.store import db as database
    from shadowswitch.store.exemplars import ExemplarStore

    store = ExemplarStore(database.make_engine(db_url))
    settled(lambda: store.count(TASK_TYPE)["usable"])
    engine = load_policies(policies).policies[TASK_TYPE].engine
    result = challenger.learn(store, TASK_TYPE, engine, actor="cli:demo")
    return {**result, "in_force": versions(store, TASK_TYPE)["certificate"]}


def settled(count: Callable[[], int], quiet_s: float = 5.0, limit_s: float = 300.0) -> int:
    """Wait until `count` has not grown for `quiet_s` (the background shadow runs have ended)."""
    started = last_change = time.monotonic()
    last = count()
    while time.monotonic() - last_change < quiet_s and time.monotonic() - started < limit_s:
        time.sleep(0.5)
        now = count()
        if now != last:
            last, last_change = now, time.monotonic()
    return last


def certified(result: dict[str, Any]) -> bool:
    found = result.get("in_force")
    return bool(found and found["status"] == "certified")


def describe(result: dict[str, Any]) -> str:
    """E.g. 'version 1 certified: confidence ≥ 0.55 at 97% agreement (lower bound 0.972), serving
    84% of the 180 held-out pairs it rests on'."""
    found = result.get("in_force")
    if not certified(result) or found is None:
        mine = (result.get("evaluation") or {}).get("challenger") or result.get("certificate") or {}
        more = mine.get("more_pairs")
        need = f"{more} more pairs at the current miss rate" if more else "more pairs"
        return (
            f"no certified region yet on {result['pairs']} pairs: canary would serve nothing locally; {need}"
        )
    target = (result.get("certificate") or {}).get("target", 0.97)
    return (
        f"version {found['version']} certified: confidence ≥ {found['threshold']} at {target:.0%} agreement "
        f"(lower bound {found['lower_bound']}), serving {100 * (found['coverage'] or 0):.0f}% of the "
        f"{found['pairs']} held-out pairs the certificate rests on"
    )
