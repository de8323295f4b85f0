"""Learned value origins: where a parameter's value comes from when the engine reads it wrong.

Each exemplar keeps, per argument the engine filled, its origin (`conversation.value_origin`:
`text:last_user`, `text:tool_result`, `decoded`, `default`...) and whether the value agreed with
the upstream's once the state's learned values apply. A tool's parameter learns that an origin is
**unreliable** when at least `MIN` of its values came from there and even the optimistic bound of
their agreement (Clopper-Pearson, one-sided 95%) is below `BELOW`, one half: values from there are
usually wrong, like the help desk's `username` read from the user's words ("Ann") where the
upstream writes the looked-up account (`ann.smith`). An origin right more often than that is left
to the state's gate and threshold, which tell its good requests from its bad ones: on the help
desk's first 496 pairs, a bar of 90% cost coverage (36% against 40% at 400 pairs, cross-validated)
where one half cost almost none and raised the agreement (46.6% served at 96.5% against 95.2%).
The served state then abstains on a call whose value for that parameter has that origin
(`unreliable_value:<param>`), and a replay counts such a call as not served: a value the
evidence says is usually wrong costs a fallback, never a wrong answer. The values of other
origins for the same parameter (the account read from the look-up's result) are still served.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scipy.stats import beta

from shadowswitch.engines.local.learned_state import Unreliable
from shadowswitch.learning.transforms import explained

NO_TOOL = "__no_tool__"
MIN = 5  # values from one origin before its record counts
BELOW = 0.5  # unreliable when its agreement's upper bound is below this
LEVEL = 0.95


def unreliable_origins(
    arguments: Sequence[tuple[str, Mapping[str, Any] | None]],
    constants: Mapping[str, Mapping[str, Any]] | None = None,
) -> Unreliable:
    """tool → {param: origins} whose values disagree too often (`constants`: the learned values,
    `rules.learned_constants`, so that a value a learned transform fixes counts as agreeing)."""
    counts: dict[tuple[str, str, str], list[int]] = {}
    for tool, args in arguments:
        if tool == NO_TOOL:
            continue
        learned = (constants or {}).get(tool, {})
        for param, entry in (args or {}).items():
            origin = entry.get("origin") if isinstance(entry, Mapping) else None
            if not origin or not entry.get("local") or "agrees" not in entry:
                continue
            count = counts.setdefault((tool, param, str(origin)), [0, 0])
            count[0] += explained(entry, learned, param)
            count[1] += 1
    out: Unreliable = {}
    for (tool, param, origin), (agreed, n) in sorted(counts.items()):
        if n >= MIN and upper_bound(agreed, n) < BELOW:
            params = out.setdefault(tool, {})
            params[param] = (*params.get(param, ()), origin)
    return out


def upper_bound(agreed: int, n: int) -> float:
    """Clopper-Pearson's one-sided upper bound on a share seen as `agreed` of `n`."""
    return 1.0 if agreed >= n else float(beta.ppf(LEVEL, agreed + 1, n - agreed))


def vetoed(arguments: Mapping[str, Any] | None, unreliable: Mapping[str, Sequence[str]] | None) -> str | None:
    """The first parameter of an exemplar's call whose value came from an unreliable origin."""
    for param, entry in (arguments or {}).items():
        if isinstance(entry, Mapping) and entry.get("origin") in (unreliable or {}).get(param, ()):
            return str(param)
    return None
