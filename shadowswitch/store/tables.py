"""The database tables. Created and changed only by the alembic migrations in `store/migrations/`."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import JSON, Column, DateTime, LargeBinary, Text, UniqueConstraint
from sqlalchemy.orm import configure_mappers
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    return datetime.now(UTC)


def new_id() -> str:
    """`uuid.uuid4().hex`, its random bytes drawn for 256 ids at once: `os.urandom` releases the
    GIL, which at concurrency 32 hands the event loop's turn to another thread (journal.py)."""
    try:
        return uuid.UUID(bytes=_RANDOM.pop(), version=4).hex
    except IndexError:
        block = os.urandom(16 * 256)
        _RANDOM.extend(block[i : i + 16] for i in range(0, len(block), 16))
        return new_id()


_RANDOM: list[bytes] = []
os.register_at_fork(after_in_child=_RANDOM.clear)  # a forked worker draws its own


def _when(index: bool = False) -> Any:
    return Field(default_factory=utcnow, sa_type=DateTime(timezone=True), index=index)


class Decision(SQLModel, table=True):
    """One chat completion through the proxy, and what each path did with it."""

    id: str = Field(primary_key=True, max_length=32)
    created_at: datetime = _when(index=True)
    task_type: str = Field(index=True, max_length=64)
    path: str = Field(max_length=16)  # local | generative | fallback
    route: str = Field(max_length=16)  # what rollout asked for: local | generative | shadow
    mode: str = Field(max_length=16)  # the task type's mode at the time
    sticky_hash: str | None = Field(default=None, max_length=64)
    conversation_hash: str | None = Field(default=None, max_length=64, index=True)
    stream: bool = False
    model: str | None = Field(default=None, max_length=200)  # what the agent asked for
    upstream_model: str | None = Field(default=None, max_length=200)
    status_code: int = 200
    latency_ms: float = 0.0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    valid: bool | None = None
    invalid_reason: str | None = Field(default=None, sa_column=Column(Text))
    error: str | None = Field(default=None, sa_column=Column(Text))
    success: bool | None = None
    feedback_reason: str | None = Field(default=None, sa_column=Column(Text))
    chosen: str | None = Field(default=None, max_length=200)
    arguments: Any = Field(default=None, sa_column=Column(JSON))
    argument_sources: Any = Field(default=None, sa_column=Column(JSON))  # the local engine's provenance
    confidence: float | None = None
    margin: float | None = None
    abstain_reason: str | None = Field(default=None, sa_column=Column(Text))
    candidates: Any = Field(default=None, sa_column=Column(JSON))
    timings_ms: Any = Field(default=None, sa_column=Column(JSON))
    shadow: Any = Field(default=None, sa_column=Column(JSON))  # the other path, when both ran
    agreement: bool | None = None
    # the learned engine state the local engine decided under (0: none, None: it did not decide)
    state_version: int | None = None
    prompt: str | None = Field(default=None, sa_column=Column(Text))  # only with store_prompts, capped
    key_name: str | None = Field(default=None, max_length=64, index=True)  # the agent key's name, not the key

    def __setattr__(self, name: str, value: Any) -> None:
        # A decision no session has seen (the request's own, until it is encoded) has no history
        # to keep: its fields go straight into its dict, not through SQLModel's `__setattr__`
        # (SQLAlchemy's event, then pydantic's), which cost more than its construction. Neither
        # an identity nor a session id: transient, without `state.transient`'s session lookup.
        state = self.__dict__.get("_sa_instance_state")
        if state is not None and state.key is None and state.session_id is None and name in _DEFAULTS:
            self.__dict__[name] = value
            self.__pydantic_fields_set__.add(name)
            return
        super().__setattr__(name, value)


def new_decision(**values: Any) -> Decision:
    """`Decision(**values)` for the request path, at a tenth of the cost: SQLModel's constructor
    sets every field through SQLAlchemy's and pydantic's `__setattr__` (a third of a
    pass-through's own CPU). Built as SQLAlchemy builds a row it loads: its instance state, then
    the values straight into the instance's dict. A transient object like any other; later
    changes are tracked as usual."""
    global _configured
    if not _configured:
        configure_mappers()  # what the first `Decision()` does; until then its attributes have no impl
        _configured = True
    decision: Decision = Decision._sa_class_manager.new_instance()  # type: ignore[attr-defined]
    fields = {name: factory() for name, factory in _FACTORIES.items()}
    fields.update(_DEFAULTS)
    fields.update(values)
    decision.__dict__.update(fields)
    object.__setattr__(decision, "__pydantic_fields_set__", set(values))
    return decision


_configured = False
# The factories called as they are (`utcnow`): pydantic's `get_default` inspects a factory's
# signature on every call, which cost more than the rest of `new_decision`.
_FACTORIES: dict[str, Callable[[], Any]] = {
    name: cast(Callable[[], Any], field.default_factory)
    for name, field in Decision.model_fields.items()
    if field.default_factory is not None
}
_DEFAULTS = {
    name: field.default
    for name, field in Decision.model_fields.items()
    if not field.is_required() and field.default_factory is None
}


class ToolCall(SQLModel, table=True):
    """A tool_call id we answered with: the next request's tool result points back to it."""

    __tablename__ = "tool_call"

    id: str = Field(primary_key=True, max_length=200)
    decision_id: str = Field(index=True, max_length=32)
    created_at: datetime = _when()


class Rollout(SQLModel, table=True):
    """The live rollout and breaker state of one task type, shared by every replica."""

    task_type: str = Field(primary_key=True, max_length=64)
    mode: str = Field(default="off", max_length=16)
    percent: float = 0.0
    breaker_state: str = Field(default="closed", max_length=16)  # closed | open | half_open
    consecutive_failures: int = 0
    failure_ids: Any = Field(default=None, sa_column=Column(JSON))
    tripped_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    reprobe_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    reprobe_wait_s: float | None = None
    half_open_successes: int = 0
    policy_mode: str | None = Field(default=None, max_length=16)  # last seen in the policy file
    policy_percent: float | None = None
    policy_ramp: Any = Field(default=None, sa_column=Column(JSON))  # the policy's rollout.ramp, last seen
    ramp_state: str | None = Field(default=None, max_length=16)  # None: never ramped (see rollouts/ramp.py)
    ramp_since: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))  # step began
    ramp_note: str | None = Field(default=None, sa_column=Column(Text))  # why it stopped, or its last move
    updated_at: datetime = _when()


class AuditEvent(SQLModel, table=True):
    """Every rollout change, by a person or by the breaker."""

    __tablename__ = "audit_event"

    id: int | None = Field(default=None, primary_key=True)
    at: datetime = _when(index=True)
    task_type: str = Field(index=True, max_length=64)
    actor: str = Field(max_length=200)  # cli:<user>, api:<token name>, policy, breaker
    kind: str = Field(max_length=16)  # seed | set | policy | trip | reprobe | restore | ramp_*
    old_mode: str | None = Field(default=None, max_length=16)
    old_percent: float | None = None
    new_mode: str | None = Field(default=None, max_length=16)
    new_percent: float | None = None
    reason: str | None = Field(default=None, sa_column=Column(Text))
    decision_ids: Any = Field(default=None, sa_column=Column(JSON))
    figures: Any = Field(default=None, sa_column=Column(JSON))  # the evidence a ramp step acted on


class Exemplar(SQLModel, table=True):
    """A valid generative answer of a task type, kept to learn from (`shadowswitch.learning`).

    The request's encoder vector, what the upstream chose, how the local engine's zero-shot
    ranking saw the same request, and per argument its type, whether its value was in the
    conversation, and the value only when it was not (a constant the upstream sets). Of the
    prompt, only the user's last words the encoder read (`texts`, redacted), and only where the
    policy tunes the encoder."""

    id: int | None = Field(default=None, primary_key=True)
    created_at: datetime = _when(index=True)
    task_type: str = Field(index=True, max_length=64)
    decision_id: str = Field(index=True, max_length=32)
    encoder: str = Field(max_length=200)  # vectors of another encoder are not comparable
    vector: bytes = Field(sa_column=Column(LargeBinary, nullable=False))  # float32, unit length
    label: str = Field(max_length=200)  # the upstream's tool or action, or "__no_tool__"
    tools_key: str = Field(max_length=64)  # hash of the offered tool names
    zero_shot: Any = Field(default=None, sa_column=Column(JSON))  # {candidate: prob}, no memory
    local_tool: str | None = Field(default=None, max_length=200)  # the tool the engine filled
    args_status: str = Field(default="none", max_length=16)  # agree | differ | missing | unknown | none
    arguments: Any = Field(default=None, sa_column=Column(JSON))  # {param: {type, in_text, value?}}
    # tools the engine would not serve on this request whatever its confidence (already called
    # for this user turn): a state that chooses one of them abstains, it does not answer wrong
    blocked: Any = Field(default=None, sa_column=Column(JSON))
    # the request's state, which the trained choice model reads besides its words: the last tool
    # called this user turn, whether its result was an error, and the step within the turn
    last_tool: str | None = Field(default=None, max_length=200)
    last_error: bool = False
    step: int = 0
    # the conversation's state besides the turn (`engines/local/conversation_state.py`): the last
    # message's role, the user's answer to a confirmation, lists being walked, a question asked
    turn: Any = Field(default=None, sa_column=Column(JSON))
    # the agent's last text reply's vector (float32, unit length), what the user's words answer
    context: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    # the user's opening words' vector (float32, unit length): what the conversation is for
    opening: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    # the text of `vector`, redacted ({"query": ...}), which the encoder is tuned on
    # (`learning/tuning.py`); None where the policy does not tune it
    texts: Any = Field(default=None, sa_column=Column(JSON))
    # per optional parameter of the upstream's tool the text offered values: the best one's score,
    # whether the engine and the upstream set it (`learning/optional.py`); never the value
    optional: Any = Field(default=None, sa_column=Column(JSON))
    excluded: bool = False  # negative feedback on its decision, before or after it was stored


class EngineState(SQLModel, table=True):
    """A learned engine state of a task type: exemplars up to `exemplar_max_id` + thresholds.

    The served state is the newest with status `served`; rolling back marks it `rolled_back`."""

    __tablename__ = "engine_state"
    __table_args__ = (UniqueConstraint("task_type", "version"),)

    id: int | None = Field(default=None, primary_key=True)
    created_at: datetime = _when()
    task_type: str = Field(index=True, max_length=64)
    version: int
    status: str = Field(max_length=16)  # served | rolled_back
    encoder: str = Field(max_length=200)
    exemplar_max_id: int
    memory_weight: float
    min_confidence: float
    figures: Any = Field(default=None, sa_column=Column(JSON))  # the evaluation that promoted it
    # the trained choice model's weights (`learning.head`), and their content hash
    head: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    head_sha256: str | None = Field(default=None, max_length=64)
    # the encoder's tuned top layers and the exemplars' vectors as they read them (`learning.tuning`)
    tuned: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    tuned_sha256: str | None = Field(default=None, max_length=64)


class RegionCertificate(SQLModel, table=True):
    """A task type's served state's certified region, as learning last found it (or withdrawn).

    The newest row of a task type is in force: the local engine serves only when it names the
    served version, says `certified`, and the answer's confidence reaches `threshold`."""

    __tablename__ = "certificate"

    id: int | None = Field(default=None, primary_key=True)
    created_at: datetime = _when()
    task_type: str = Field(index=True, max_length=64)
    version: int  # the engine state's version (0: the prior)
    status: str = Field(max_length=16)  # certified | uncertified | withdrawn
    threshold: float | None = None  # the region: confidence at or above it (None: no region)
    since_pair: int = 0  # only exemplars after this id may certify (set by a withdrawal)
    figures: Any = Field(default=None, sa_column=Column(JSON))  # `learning.certificate` figures


class AgentKey(SQLModel, table=True):
    """An agent's key: only its sha256 and a short prefix to recognise it by; never the key."""

    __tablename__ = "agent_key"

    name: str = Field(primary_key=True, max_length=64)
    key_hash: str = Field(max_length=64, unique=True)
    prefix: str = Field(max_length=16)
    task_types: Any = Field(default=None, sa_column=Column(JSON))  # None: every task type
    rpm: int | None = None  # requests a minute
    budget_usd_per_day: float | None = None  # upstream money a UTC day, as the report counts it
    created_at: datetime = _when()
    created_by: str = Field(max_length=200)
    revoked_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    revoked_by: str | None = Field(default=None, max_length=200)


class AgentUsage(SQLModel, table=True):
    """One key's requests and upstream money in one window (`m:<minute>` or `d:<day>`, UTC), counted
    by every replica in place (an atomic upsert), so that limits hold across replicas."""

    __tablename__ = "agent_usage"

    key_name: str = Field(primary_key=True, max_length=64)
    bucket: str = Field(primary_key=True, max_length=32)
    requests: int = 0
    usd: float = 0.0
    updated_at: datetime = _when()
