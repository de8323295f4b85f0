"""The policy file format: one task type per YAML file, validated strictly."""

from __future__ import annotations

import itertools
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from shadowswitch.durations import parse_since

Mode = Literal["off", "shadow", "canary"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _check_regex(value: str | None) -> str | None:
    if value is not None:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"invalid regular expression: {exc}") from None
    return value


class Match(Strict):
    """Rules that recognise a task type when no X-Shadowswitch-Task header names it."""

    model: str | None = None
    system_prompt_regex: str | None = None
    tools_include: list[str] = Field(default_factory=list)

    _regex = field_validator("system_prompt_regex")(_check_regex)

    @property
    def is_empty(self) -> bool:
        return not (self.model or self.system_prompt_regex or self.tools_include)


class Upstream(Strict):
    """The generative path, reached through LiteLLM."""

    model: str | None = None  # None: the request's own "model"
    api_base: str | None = None
    api_key_env: str | None = None
    timeout_s: float = Field(default=30.0, gt=0, le=3600)


class RampRequire(Strict):
    """What each step's evidence must show before the ramp takes the next one."""

    agreement: float = Field(default=0.95, gt=0, le=1)  # beyond doubt (anytime-valid lower bound)
    success_not_worse: bool = True  # local success not shown worse than generative
    valid: float = Field(default=1.0, ge=0, le=1)  # share of local answers that fit the request


class Ramp(Strict):
    """Progressive delivery: raise the percentage step by step while the evidence passes."""

    steps: list[float] = Field(default_factory=lambda: [5.0, 25.0, 50.0, 100.0], min_length=1)
    min_pairs: int = Field(default=200, ge=1)  # pairs (both paths on one request) at each step
    min_duration: str = "30m"  # and at least this long at each step
    require: RampRequire = Field(default_factory=RampRequire)
    on_fail: Literal["hold", "revert"] = "hold"

    @field_validator("steps")
    @classmethod
    def _rising(cls, steps: list[float]) -> list[float]:
        if any(not 0 < s <= 100 for s in steps):
            raise ValueError("every step is a percent above 0 and at most 100")
        if any(b <= a for a, b in itertools.pairwise(steps)):
            raise ValueError("steps must rise")
        return steps

    @field_validator("min_duration", mode="before")
    @classmethod
    def _duration(cls, value: Any) -> Any:
        if isinstance(value, int | float) and not isinstance(value, bool):
            value = f"{value}s"  # a bare number means seconds
        if isinstance(value, str):
            parse_since(value)  # ValueError names the accepted forms
        return value

    @property
    def min_duration_s(self) -> float:
        return parse_since(self.min_duration).total_seconds()


class Rollout(Strict):
    mode: Mode = "off"
    percent: float = Field(default=0.0, ge=0, le=100)
    sticky_key: Literal["session", "user", "conversation"] = "session"
    compare_percent: float = Field(default=0.0, ge=0, le=100)
    ramp: Ramp | None = None  # None: no ramp starts by itself (`rollout ramp start` uses the defaults)

    @model_validator(mode="after")
    def _ramp_can_see(self) -> Rollout:
        if self.ramp is not None and not self.compare_percent:
            raise ValueError("ramp needs compare_percent above 0: canary steps are judged on compared pairs")
        return self


class Engine(Strict):
    model: str = "embedded"  # embedded | HF directory | .gguf path
    scorer: Literal["lm", "embedding", "hybrid"] = "hybrid"
    candidates: Literal["tools", "actions", "schema_enum"] = "tools"
    allow_no_tool: bool = True
    max_candidates: int = Field(default=8, ge=2, le=64)
    min_confidence: float = Field(default=0.5, ge=0, le=1)
    min_margin: float = Field(default=0.05, ge=0, le=1)
    target_agreement: float = Field(default=0.97, ge=0.5, le=0.999)  # learning fits thresholds to it
    learn: bool = True  # learn from this task type's generative answers
    arguments: Literal["local", "generative"] = "local"
    # The sentence encoder: all-MiniLM-L6-v2 (english), multilingual-e5-small (multilingual), or
    # per request by the script it is written in (auto: English reads exactly as `english`).
    encoder: Literal["auto", "english", "multilingual"] = "auto"


class Slot(Strict):
    type: Literal["string", "integer", "number", "boolean"] = "string"
    pattern: str | None = None
    enum: list[Any] | None = None
    required: bool = True

    _regex = field_validator("pattern")(_check_regex)


class Action(Strict):
    """A candidate for agents that prompt for raw JSON instead of using `tools`."""

    id: str = Field(min_length=1)
    description: str = Field(min_length=1)
    examples: list[str] = Field(default_factory=list)
    output: dict[str, Any] | list[Any] | str
    slots: dict[str, Slot] = Field(default_factory=dict)
    fill: Literal["local", "generative"] = "local"


class Breaker(Strict):
    consecutive_failures: int = Field(default=3, ge=1, le=1000)
    count_abstain: bool = False
    count_disagreement: bool = False
    reprobe_after_s: float = Field(default=600.0, ge=0)
    reprobe_percent: float = Field(default=5.0, ge=0, le=100)
    restore_after_successes: int = Field(default=20, ge=1)
    max_reprobe_after_s: float = Field(default=6 * 3600.0, ge=0)


class Feedback(Strict):
    tool_error_regex: str = r"(?i)\berror\b|exception|not found"

    _regex = field_validator("tool_error_regex")(_check_regex)


class Policy(Strict):
    """One task type: how to recognise it, where its generative path goes, how to roll out."""

    task_type: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.\-]+$")
    description: str = ""
    match: Match = Field(default_factory=Match)
    upstream: Upstream = Field(default_factory=Upstream)
    rollout: Rollout = Field(default_factory=Rollout)
    engine: Engine = Field(default_factory=Engine)
    actions: list[Action] = Field(default_factory=list)
    breaker: Breaker = Field(default_factory=Breaker)
    feedback: Feedback = Field(default_factory=Feedback)

    @model_validator(mode="after")
    def _actions_when_needed(self) -> Policy:
        if self.engine.candidates == "actions" and not self.actions:
            raise ValueError("engine.candidates is 'actions' but no actions are listed")
        ids = [a.id for a in self.actions]
        if len(ids) != len(set(ids)):
            raise ValueError("action ids must be unique")
        return self


class Defaults(Strict):
    """`_defaults.yaml`: the upstream for unclassified traffic, and defaults for every policy."""

    upstream: Upstream = Field(default_factory=Upstream)
    rollout: Rollout | None = None
    engine: Engine | None = None
    breaker: Breaker | None = None
    feedback: Feedback | None = None


class PolicySet(BaseModel):
    """Every policy loaded from one directory, plus the defaults."""

    defaults: Defaults = Field(default_factory=Defaults)
    policies: dict[str, Policy] = Field(default_factory=dict)

    def replace_with(self, other: PolicySet) -> None:
        """Take `other`'s contents in place, so that everything holding this set sees the new one.

        Call it on the event loop: no await falls between the assignments, so a request that
        reads the set (classification and its policy, in one synchronous step) sees the old set
        or the new one, never a mix.
        """
        for name in type(self).model_fields:
            setattr(self, name, getattr(other, name))
