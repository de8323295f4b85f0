"""GET /v1/shadowswitch/report's body as typed models: the JSON of `analysis/report.py`'s
`build_report` (the same as `shadowswitch report --json`), key for key and in the same order."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from shadowswitch.api.responses import RampOut


class RateOut(BaseModel):
    """A share with its Wilson 95% interval (None without data)."""

    rate: float | None
    hits: int
    n: int
    ci95: tuple[float, float] | None


class Latency(BaseModel):
    p50: float | None
    p95: float | None
    p99: float | None


class Tokens(BaseModel):
    prompt: int
    completion: int


class PathStats(BaseModel):
    """One path's figures over the window."""

    requests: int
    errors: int
    latency_ms: Latency
    valid: RateOut
    success: RateOut
    abstain: RateOut
    abstain_reasons: dict[str, int]
    tokens: Tokens


class Comparison(BaseModel):
    """Requests both paths answered: the same tool, and the same whole call."""

    pairs: int
    same_tool: RateOut
    same_call: RateOut


class Difference(BaseModel):
    """Local's success rate minus generative's, with Newcombe's 95% interval."""

    diff: float
    ci95: tuple[float, float]


class Saving(BaseModel):
    usd: float | None
    usd_per_day: float | None
    note: str | None


class ShadowRuns(BaseModel):
    runs: int
    failed: int
    skipped: int
    latency_ms: Latency


class VerdictOut(BaseModel):
    kind: str
    text: str
    agreement_cs: tuple[float, float] | None  # anytime-valid bounds on the agreement


class TaskReport(BaseModel):
    task_type: str
    mode: str
    percent: float
    paths: dict[str, PathStats]  # only the paths that answered in the window
    comparison: Comparison
    success_difference: Difference | None
    speedup: float | None
    saving: Saving
    shadow_runs: dict[str, ShadowRuns]
    verdict: VerdictOut
    ramp: RampOut | None
    # GET /learning/{task}'s body; absent, not null, when the proxy does not learn this task type
    learning: dict[str, Any] | None = None


class KeyUsage(BaseModel):
    """One agent key's requests over the window (`key` null: those sent without a key)."""

    key: str | None
    requests: int
    paths: dict[str, int]
    same_call: RateOut
    success: RateOut
    upstream_usd: float | None
    task_types: list[str]


class Report(BaseModel):
    since: str
    until: str
    task_types: list[TaskReport]
    keys: list[KeyUsage]
