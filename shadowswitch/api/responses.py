"""The API's response bodies as typed models, built from the store's rows.

The routes return these (FastAPI serialises them); the CLI prints the same with `model_dump`.
The JSON is what the routes returned as plain dicts before: same keys, in the same order. About
300 lines: every body in one place, as the OpenAPI reference lists them.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from shadowswitch.rollouts.ramp_status import ramp_json
from shadowswitch.rollouts.store.repository import RolloutRepository
from shadowswitch.rollouts.store.rows import aggregate, as_utc
from shadowswitch.states import RampState
from shadowswitch.store.tables import AuditEvent, Decision, Rollout

if TYPE_CHECKING:
    from shadowswitch.server.reload import Reloaded


class Setting(BaseModel):
    mode: str | None
    percent: float | None


class AuditEventOut(BaseModel):
    """One rollout change, by a person, a policy, the breaker or the ramp."""

    id: int | None
    at: str | None
    task_type: str
    actor: str
    kind: str
    old: Setting
    new: Setting
    reason: str | None
    decision_ids: list[str]
    figures: dict[str, Any] | None

    @classmethod
    def of(cls, event: AuditEvent) -> AuditEventOut:
        return cls(
            id=event.id,
            at=iso(event.at),
            task_type=event.task_type,
            actor=event.actor,
            kind=event.kind,
            old=Setting(mode=event.old_mode, percent=event.old_percent),
            new=Setting(mode=event.new_mode, percent=event.new_percent),
            reason=event.reason,
            decision_ids=event.decision_ids or [],
            figures=event.figures,
        )


class BreakerOut(BaseModel):
    state: str
    consecutive_failures: int
    tripped_at: str | None
    reprobe_at: str | None
    reprobe_wait_s: float | None
    half_open_successes: int
    failure_ids: list[str]


class RampOut(BaseModel):
    """A ramp's position, and what a running one waits for."""

    state: str
    steps: list[float]
    step: int
    next_percent: float | None
    since: str | None
    note: str | None
    waiting: list[str]
    figures: dict[str, Any] | None
    text: str


class RolloutOut(BaseModel):
    """A task type's rollout: mode, percent, breaker and ramp."""

    task_type: str
    mode: str
    percent: float
    breaker: BreakerOut
    updated_at: str | None
    ramp: RampOut | None

    @classmethod
    def of(cls, row: Rollout, ramp: dict[str, Any] | None = None) -> RolloutOut:
        """`ramp`: the ramp's status with its evidence (a running one); else read from the row."""
        return cls(
            task_type=row.task_type,
            mode=row.mode,
            percent=row.percent,
            breaker=BreakerOut(
                state=row.breaker_state,
                consecutive_failures=row.consecutive_failures,
                tripped_at=iso(row.tripped_at),
                reprobe_at=iso(row.reprobe_at),
                reprobe_wait_s=row.reprobe_wait_s,
                half_open_successes=row.half_open_successes,
                failure_ids=aggregate(row).breaker.decision_ids,
            ),
            updated_at=iso(row.updated_at),
            ramp=RampOut.model_validate(ramp) if ramp is not None else _ramp(row),
        )

    @classmethod
    def shown(cls, rollouts: RolloutRepository, row: Rollout) -> RolloutOut:
        """With a running ramp's evidence and what it waits for (reads the decisions)."""
        return cls.of(row, rollouts.status(row) if row.ramp_state == RampState.RUNNING else None)


class ListedRollout(RolloutOut):
    """`configured` is false once the task type's policy file is gone (the row is kept, so the task
    type comes back where it was if the file does)."""

    configured: bool


class PolicyReload(BaseModel):
    task_types: list[str]
    added: list[str]
    changed: list[str]
    removed: list[str]
    defaults_changed: bool
    audit: list[AuditEventOut]
    loading_models: list[str]

    @classmethod
    def of(cls, done: Reloaded) -> PolicyReload:
        return cls(
            task_types=done.task_types,
            added=done.changes.added,
            changed=done.changes.changed,
            removed=done.changes.removed,
            defaults_changed=done.changes.defaults_changed,
            audit=[AuditEventOut.of(e) for e in done.audit],
            loading_models=done.loading,
        )


class DecisionOut(BaseModel):
    """One decision as recorded: every column of the row but `sticky_hash` (a routing detail)."""

    id: str
    created_at: datetime
    task_type: str
    path: str
    route: str
    mode: str
    conversation_hash: str | None
    stream: bool
    model: str | None
    upstream_model: str | None
    status_code: int
    latency_ms: float
    prompt_tokens: int | None
    completion_tokens: int | None
    valid: bool | None
    invalid_reason: str | None
    error: str | None
    success: bool | None
    feedback_reason: str | None
    chosen: str | None
    arguments: Any
    argument_sources: Any
    confidence: float | None
    margin: float | None
    abstain_reason: str | None
    candidates: Any
    timings_ms: Any
    shadow: Any
    agreement: bool | None
    state_version: int | None
    prompt: str | None
    key_name: str | None

    @classmethod
    def of(cls, row: Decision) -> DecisionOut:
        return cls.model_validate(row, from_attributes=True)


class ModelCard(BaseModel):
    """A model name an agent may ask for, and the task type it leads to (OpenAI's shape)."""

    id: str
    object: Literal["model"] = "model"
    created: int = 0
    owned_by: str  # shadowswitch:<task type>


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelCard]


def _ramp(row: Rollout) -> RampOut | None:
    data = ramp_json(aggregate(row))
    return RampOut.model_validate(data) if data is not None else None


# -- learning ------------------------------------------------------------------------------


class Thresholds(BaseModel):
    min_confidence: float
    min_margin: float
    memory_weight: float
    source: str  # learned | policy


class Point(BaseModel):
    """Agreement and coverage of a state on recent pairs, each decided without its own exemplar."""

    pairs: int
    agreement: float | None
    coverage: float | None


class CurvePoint(BaseModel):
    threshold: float
    served: int
    agreement: float | None
    coverage: float


class ToolRecord(BaseModel):
    """The served state's record of the engine's calls of one tool (`learning/tool_records.py`)."""

    tool: str
    pairs: int  # exemplars where the upstream chose it
    judged: int  # of those, where the engine's call of it was judged
    agreed: float
    record: float  # what a call's gate falls back on: agreed of judged, one pseudo-call at the task's rate
    unproven: bool  # never served, however sure the choice


class HeldOut(BaseModel):
    """The challenger's figures on the held-out pairs that promoted it."""

    pairs: int | None
    agreement: float | None
    coverage: float | None


class Live(BaseModel):
    """The local engine's decisions under a version since: answered (coverage) and agreed with
    the upstream's whole call where both answered (agreement)."""

    decisions: int
    answered: int
    compared: int
    agreed: int
    coverage: float | None
    agreement: float | None


class CertificateFigures(BaseModel):
    """A version's newest certificate (docs/learning.md#seeing-it)."""

    status: str  # certified | uncertified | withdrawn
    threshold: float | None
    coverage: float | None
    lower_bound: float | None
    pairs: int | None
    served: int | None
    more_pairs: int | None  # still needed at the current miss rate to certify the next threshold
    next_threshold: float | None
    at: str
    version: int | None = None  # on the one in force


class PriorLive(Live):
    certificate: CertificateFigures | None = None  # the prior's


class StateVersion(BaseModel):
    version: int
    status: str  # served | rolled_back
    created_at: str  # when it was promoted
    exemplar_max_id: int
    memory_weight: float
    min_confidence: float
    head_sha256: str | None
    learned_from: int | None  # pairs it learned from (None: promoted before this was recorded)
    held_out: HeldOut | None
    live: Live
    certificate: CertificateFigures | None = None


class LearningStatus(BaseModel):
    """What a task type's learning has collected and serves, and every version's figures."""

    task_type: str
    pairs: int
    excluded: int
    fillers: int = 0  # usable pairs learning leaves out: replies that only put a call off
    served_version: int
    thresholds: Thresholds
    target_agreement: float
    learn: bool
    recent: Point
    curve: list[CurvePoint]
    tools: list[ToolRecord] = []  # per tool the served state's exemplars chose
    versions: list[StateVersion]
    prior: PriorLive  # decisions made under no learned state, and the prior's certificate
    certificate: CertificateFigures | None = None  # the one in force (None: never certified)


class LearnerWoken(BaseModel):
    learner: str  # the replica's trainer name, as the audit shows it: learner:<host>:<pid>
    by: str


def iso(value: datetime | None) -> str | None:
    value = as_utc(value)
    return value.isoformat() if value else None
