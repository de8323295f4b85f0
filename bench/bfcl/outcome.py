"""One system's result on one case, and the figures summarised from many of them."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from bench.bfcl.checker import Call, check_case
from bench.bfcl.data import BfclCase


@dataclass
class Outcome:
    """What a system did on a case. `choice_ms`: deciding only; `call_ms`: the whole answer."""

    id: str
    category: str
    name_ok: bool
    call_ok: bool
    valid: bool
    chosen: str | None  # tool name, "" for no tool, None when the output did not parse
    choice_ms: float | None
    call_ms: float
    path: str = "local"  # local | fallback | generative (proxy), direct (baselines)
    error: str | None = None
    abstain: str | None = None  # why the engine handed the case to the upstream (decision record)

    def compact(self) -> list[Any]:
        """One short row for the results file."""
        return [
            self.id,
            int(self.name_ok),
            int(self.call_ok),
            int(self.valid),
            self.chosen,
            _round(self.choice_ms),
            _round(self.call_ms),
            self.path,
            self.error,
            self.abstain,
        ]


FIELDS = ["id", "name_ok", "call_ok", "valid", "chosen", "choice_ms", "call_ms", "path", "error", "abstain"]
MISSING_VALUE = "missing_value:"  # the engine's abstain reason when a required value is not in the text


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def from_compact(row: list[Any]) -> Outcome:
    """Inverse of Outcome.compact (the category is the id's prefix); rows of older files, without
    the last fields, read them as None."""
    data = dict(zip(FIELDS, [*row, *[None] * (len(FIELDS) - len(row))], strict=True))
    category = str(data["id"]).rsplit("_", 1)[0]
    flags = {k: bool(data[k]) for k in ("name_ok", "call_ok", "valid")}
    return Outcome(**{**data, **flags, "category": category})


def score(case: BfclCase, calls: list[Call] | None, **timing: Any) -> Outcome:
    """Check `calls` against the case and wrap the verdict with its timings."""
    verdict = check_case(case, calls)
    chosen = None if calls is None else (calls[0].name if calls else "")
    return Outcome(
        case.id,
        case.category,
        verdict.name_ok,
        verdict.call_ok,
        verdict.valid,
        chosen,
        error=verdict.error,
        **timing,
    )


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank-interpolated percentile, None for no values."""
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def _rate(flags: list[bool]) -> float | None:
    return round(sum(flags) / len(flags), 4) if flags else None


def missing_value(outcome: Outcome) -> bool:
    """The upstream answered because a required value was not in the conversation."""
    return outcome.path == "fallback" and (outcome.abstain or "").startswith(MISSING_VALUE)


def missing_value_rate(outcomes: list[Outcome]) -> float | None:
    """The share of cases the engine gave up for a missing value; None for systems that never
    go through the engine (the baselines)."""
    if all(o.path == "direct" for o in outcomes):
        return None
    return _rate([missing_value(o) for o in outcomes])


def summarise(outcomes: list[Outcome]) -> dict[str, Any]:
    """Accuracies (BFCL's), validity, fallback and missing-value shares and latency percentiles
    of one system."""
    with_answer = [o for o in outcomes if "relevance" not in o.category]
    irrelevant = [o for o in outcomes if "irrelevance" in o.category]
    choice = [o.choice_ms for o in outcomes if o.choice_ms is not None]
    calls = [o.call_ms for o in outcomes]
    return {
        "cases": len(outcomes),
        "name_acc": _rate([o.name_ok for o in with_answer]),
        "ast_acc": _rate([o.call_ok for o in with_answer]),
        "no_tool_acc": _rate([o.call_ok for o in irrelevant]),
        "overall_acc": _rate([o.call_ok for o in outcomes]),
        "valid_rate": _rate([o.valid for o in outcomes]),
        "fallback_rate": _rate([o.path == "fallback" for o in outcomes]),
        "missing_value_rate": missing_value_rate(outcomes),
        "missing_value_cases": sum(missing_value(o) for o in outcomes),
        "choice_p50_ms": _round(percentile(choice, 50)),
        "choice_p95_ms": _round(percentile(choice, 95)),
        "call_p50_ms": _round(percentile(calls, 50)),
        "call_p95_ms": _round(percentile(calls, 95)),
    }
