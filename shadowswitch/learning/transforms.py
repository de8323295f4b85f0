"""Learned transforms: how the upstream consistently rewrites a value the engine read from the text.

Each exemplar keeps, per argument the engine filled from the conversation, the names of the
rewrites (`engines/local/arguments/rewrites.py`) that map the engine's grounded value to the
upstream's, never the values. A tool's parameter learns the rewrite that explains at least
`SHARE` of at least `MIN` such exemplars, when the value as read does not already (identity).
A learned transform is a parameter's learned value beside a learned constant: the served state
applies it to a grounded value only (provenance `learned_transform`), and the replay counts a
call it fixes as agreeing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from shadowswitch.engines.local.learned_state import Ranked, Transform
from shadowswitch.learning.values import reranked

NO_TOOL = "__no_tool__"
SHARE = 0.95  # the same evidence bar as a learned constant
MIN = 5


def learned_transforms(
    arguments: Sequence[tuple[str, Mapping[str, Any] | None]],
) -> dict[str, dict[str, Transform]]:
    """tool → {param: Transform} from the exemplars' arguments (`exemplar._arguments`)."""
    seen: dict[tuple[str, str], list[list[str]]] = {}
    for tool, args in arguments:
        if tool == NO_TOOL:
            continue
        for param, entry in (args or {}).items():
            if isinstance(entry, dict) and isinstance(entry.get("transforms"), list):
                seen.setdefault((tool, param), []).append([str(n) for n in entry["transforms"]])
    out: dict[str, dict[str, Transform]] = {}
    for (tool, param), lists in sorted(seen.items()):
        name = select(lists)
        if name is not None:
            out.setdefault(tool, {})[param] = Transform(name)
    return out


def select(explained: Sequence[Sequence[str]]) -> str | None:
    """The rewrite that explains at least SHARE of at least MIN exemplars (each a list of the
    rewrites that map its grounded value to the upstream's), unless the value as read already
    does; the most often explaining first, then the earlier (simpler) in the library's order."""
    n = len(explained)
    if n < MIN:
        return None
    counts: dict[str, int] = {}
    order: dict[str, int] = {}
    for names in explained:
        for i, name in enumerate(dict.fromkeys(names)):
            counts[name] = counts.get(name, 0) + 1
            order.setdefault(name, i)
    if counts.get("identity", 0) >= SHARE * n:
        return None
    ranked = sorted((c for c in counts if c != "identity"), key=lambda c: (-counts[c], order[c]))
    return ranked[0] if ranked and counts[ranked[0]] >= SHARE * n else None


def explained(entry: Mapping[str, Any], learned: Mapping[str, Any], param: str) -> bool:
    """Whether an exemplar's argument agrees once the state's learned values apply: one the engine
    read agrees as read, or, where a transform is learned, that transform maps it; one the engine
    left out is a learned constant's value; where a ranking is learned, as that ranking fills it."""
    value = learned.get(param)
    if isinstance(value, Ranked):
        entry, value = reranked(entry, value.table), value.then
    if entry.get("local"):
        if isinstance(value, Transform):
            return value.name in entry.get("transforms", [])
        return bool(entry.get("agrees"))
    return param in learned and not isinstance(value, Transform) and entry.get("value") == value
