"""What a state learns from its pairs' arguments: the values it fills for the upstream (constants,
rewrites, value rankings, the pointer) and the value origins it abstains on."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from shadowswitch.engines.local.learned_state import (
    POINTER,
    SET,
    Ranked,
    Unreliable,
    rankings_of,
    transforms_of,
)
from shadowswitch.learning.optional import fit_setting
from shadowswitch.learning.origins import unreliable_origins
from shadowswitch.learning.transforms import learned_transforms
from shadowswitch.learning.values import fit_pointer, fit_rankings, reranked

NO_TOOL = "__no_tool__"
CONSTANT_SHARE = 0.95  # a constant is learned when (nearly) every exemplar of the tool sets it
CONSTANT_MIN = 5  # ... and at least this many did


Calls = Sequence[tuple[str, Mapping[str, Any] | None]]  # each pair's tool and its exemplar's record


class Recorded(Protocol):
    @property
    def label(self) -> str: ...
    @property
    def arguments(self) -> Mapping[str, Any] | None: ...
    @property
    def optional(self) -> Mapping[str, Any] | None: ...


def calls_of(pairs: Iterable[Recorded]) -> tuple[Calls, Calls]:
    """The pairs' calls and their optional parameters' records, as `learned_rules` reads them."""
    pairs = list(pairs)
    return [(p.label, p.arguments) for p in pairs], [(p.label, p.optional) for p in pairs]


def learned_rules(arguments: Calls, optional: Calls = ()) -> tuple[dict[str, dict[str, Any]], Unreliable]:
    """The learned values (`learned_constants`) and, judged with them, the unreliable value
    origins (`origins.unreliable_origins`) of these calls (`arguments`, and beside them their
    optional parameters' records, `optional`): what a state learns from its pairs."""
    constants = learned_constants(arguments, optional)
    return constants, unreliable_origins(arguments, constants)


def learned_constants(arguments: Calls, optional: Calls = ()) -> dict[str, dict[str, Any]]:
    """tool → {param: learned value}: a constant, for values the upstream set in (nearly) every
    call of that tool and that were never in the conversation (the agent's constant, not something
    the user said); else a `Transform` of the value read from the text (`learned_transforms`); a
    parameter whose text values a learned ranking re-orders (`values.py`), or an optional one with
    learned weights of being set (`optional.py`, under `SET`), has a `Ranked`, its other
    learned value (if any) inside; the learned pointer is under `POINTER` (`values.fit_pointer`)."""
    rankings = fit_rankings(arguments)
    arguments = [(tool, _reranked(args, rankings.get(tool, {}))) for tool, args in arguments]
    calls: dict[str, list[Mapping[str, Any]]] = {}
    for tool, args in arguments:
        calls.setdefault(tool, []).append(args or {})
    out: dict[str, dict[str, Any]] = {}
    for tool, seen in calls.items():
        if len(seen) < CONSTANT_MIN:
            continue
        params = {p for args in seen for p in args}
        for param in sorted(params):
            values = [args.get(param) for args in seen]
            found = [v for v in values if isinstance(v, dict) and not v.get("in_text") and "value" in v]
            keys = {repr(v["value"]) for v in found}
            if len(keys) == 1 and len(found) >= CONSTANT_SHARE * len(seen):
                out.setdefault(tool, {})[param] = found[0]["value"]
    for tool, transforms in learned_transforms(arguments).items():
        for param, transform in transforms.items():
            out.setdefault(tool, {}).setdefault(param, transform)
    usual = usual_parameters(arguments)  # required for this agent: the engine fills them or abstains
    for tool, learned_setting in fit_setting(optional).items():
        for param, weights in learned_setting.items():
            if param not in usual.get(tool, []):
                table = rankings.setdefault(tool, {}).setdefault(param, {})
                table.update({SET + k: w for k, w in weights.items()})
    for tool, ranked in rankings.items():
        for param, weights in ranked.items():
            learned = out.setdefault(tool, {})
            learned[param] = Ranked(tuple(sorted(weights.items())), learned.get(param))
    pointer = fit_pointer(arguments)
    if pointer:  # shared by every tool and parameter: which of the memory's values is copied
        out[POINTER] = pointer
    return out


def learned_report(arguments: Calls, optional: Calls = ()) -> dict[str, Any]:
    """What a state learned from these calls rewrites (`transforms`: tool → param → rewrite),
    re-ranks (`rankings`: tool → param → feature weights, and "set:<feature>" the weights of
    setting an optional parameter) and abstains on (`unreliable`: tool → param → origins), as
    `shadowswitch learn` reports it."""
    learned, unreliable = learned_rules(arguments, optional)
    return {
        "transforms": {tool: found for tool, values in learned.items() if (found := transforms_of(values))},
        "rankings": {tool: ranked for tool, values in learned.items() if (ranked := rankings_of(values))},
        "unreliable": {tool: {param: list(o) for param, o in ps.items()} for tool, ps in unreliable.items()},
    }


def _reranked(
    args: Mapping[str, Any] | None, rankings: Mapping[str, Mapping[str, float]]
) -> Mapping[str, Any] | None:
    if not args or not rankings:
        return args
    return {
        k: reranked(v, rankings[k]) if k in rankings and isinstance(v, Mapping) else v
        for k, v in args.items()
    }


def usual_parameters(arguments: Sequence[tuple[str, Mapping[str, Any] | None]]) -> dict[str, list[str]]:
    """tool → parameters the upstream set in (nearly) every call of that tool, whatever the value:
    for this agent they are as good as required, so the engine fills them or abstains (an
    optional parameter left out is a call that does not agree)."""
    calls: dict[str, list[Mapping[str, Any]]] = {}
    for tool, args in arguments:
        if tool != NO_TOOL:
            calls.setdefault(tool, []).append(args or {})
    out: dict[str, list[str]] = {}
    for tool, seen in calls.items():
        if len(seen) >= CONSTANT_MIN:
            params = sorted({p for args in seen for p in args})
            usual = [p for p in params if sum(p in args for args in seen) >= CONSTANT_SHARE * len(seen)]
            if usual:
                out[tool] = usual
    return out
