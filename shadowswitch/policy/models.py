"""The policy file format: one task type per YAML file, validated strictly."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

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


class Rollout(Strict):
    mode: Mode = "off"
    percent: float = Field(default=0.0, ge=0, le=100)
    sticky_key: Literal["session", "user", "conversation"] = "session"
    compare_percent: float = Field(default=0.0, ge=0, le=100)


class Engine(Strict):
    model: str = "embedded"  # embedded | HF directory | .gguf path
    scorer: Literal["lm", "embedding", "hybrid"] = "hybrid"
    candidates: Literal["tools", "actions", "schema_enum"] = "tools"
    allow_no_tool: bool = True
    max_candidates: int = Field(default=8, ge=2, le=64)
    min_confidence: float = Field(default=0.5, ge=0, le=1)
    min_margin: float = Field(default=0.05, ge=0, le=1)
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
