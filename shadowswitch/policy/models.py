"""The policy file format: one task type per YAML file, validated strictly.

Every field carries its description and an example: docs/policies.md is generated from them
(`shadowswitch policy schema`).
"""

from __future__ import annotations

import itertools
import re
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

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

    model: str | None = Field(
        default=None,
        description='The request\'s "model" equals this.',
        examples=["travel-agent-step"],
    )
    system_prompt_regex: str | None = Field(
        default=None,
        description="A regular expression found in the request's system prompt.",
        examples=["travel planner"],
    )
    tools_include: list[str] = Field(
        default_factory=list,
        description="Tool names the request offers, all of them.",
        examples=[["search_flights", "book_hotel"]],
    )

    _regex = field_validator("system_prompt_regex")(_check_regex)

    @property
    def is_empty(self) -> bool:
        return not (self.model or self.system_prompt_regex or self.tools_include)


class Upstream(Strict):
    """The generative path, reached through LiteLLM."""

    model: str | None = Field(
        default=None,
        description='Any LiteLLM model string; null: the request\'s own "model".',
        examples=["openai/gpt-4o-mini"],
    )
    api_base: str | None = Field(
        default=None,
        description="An OpenAI-compatible server's base URL; null: the provider's own.",
        examples=["http://127.0.0.1:8000/v1"],
    )
    api_key_env: str | None = Field(
        default=None,
        description="The environment variable holding the upstream's key: keys are never written inline.",
        examples=["OPENAI_API_KEY"],
    )
    timeout_s: float = Field(
        default=30.0,
        gt=0,
        le=3600,
        description="Seconds before a generative call gives up (the agent gets 504 `upstream_timeout`).",
        examples=[60],
    )
    auth: Literal["env", "passthrough"] = Field(
        default="env",
        description=(
            "Whose key the upstream gets: `env` the one in `api_key_env`; `passthrough` the caller's "
            "own bearer token (then the agent key, if any, comes in X-Shadowswitch-Key), never stored, "
            "logged or echoed."
        ),
        examples=["passthrough"],
    )
    _caller_key: str | None = PrivateAttr(default=None)

    @property
    def caller_key(self) -> str | None:
        """The caller's provider key, on this request's copy only (`with_caller_key`)."""
        return self._caller_key

    def with_caller_key(self, key: str) -> Upstream:
        copy = self.model_copy()
        copy._caller_key = key
        return copy


class RampRequire(Strict):
    """What each step's evidence must show before the ramp takes the next one."""

    agreement: float = Field(
        default=0.95,
        gt=0,
        le=1,
        description="Agreement with generative, beyond doubt: the anytime-valid lower bound reaches it.",
        examples=[0.97],
    )
    success_not_worse: bool = Field(
        default=True, description="Local success must not be shown worse than generative.", examples=[True]
    )
    valid: float = Field(
        default=1.0,
        ge=0,
        le=1,
        description="The share of local answers that fit the request, at least.",
        examples=[0.99],
    )


class Ramp(Strict):
    """Progressive delivery: raise the percentage step by step while the evidence passes."""

    steps: list[float] = Field(
        default_factory=lambda: [5.0, 25.0, 50.0, 100.0],
        min_length=1,
        description="Canary percents after shadow, rising; each above 0 and at most 100.",
        examples=[[10, 50, 100]],
    )
    min_pairs: int = Field(
        default=200,
        ge=1,
        description="Compared pairs (both paths on one request) needed at each step.",
        examples=[500],
    )
    min_duration: str = Field(
        default="30m",
        description="At least this long at each step: a number and s, m, h, d or w (a bare number: seconds).",
        examples=["2h"],
    )
    require: RampRequire = Field(
        default_factory=RampRequire, description="What each step's evidence must show."
    )
    on_fail: Literal["hold", "revert"] = Field(
        default="hold",
        description="When the evidence says worse: hold at the step, or revert to shadow.",
        examples=["revert"],
    )

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
    """Where the task type starts: applied at start and on reload as an audited change (actor `policy`)."""

    mode: Mode = Field(
        default="off",
        description="off: generative only; shadow: generative answers, the local engine decides beside it; "
        "canary: `percent` of sticky keys answered locally.",
        examples=["shadow"],
    )
    percent: float = Field(
        default=0.0,
        ge=0,
        le=100,
        description="canary: the share of sticky keys served locally.",
        examples=[10],
    )
    sticky_key: Literal["session", "user", "conversation"] = Field(
        default="session",
        description="What keeps a caller on one path: the X-Shadowswitch-Session header, the request's "
        "`user`, or the conversation.",
        examples=["user"],
    )
    compare_percent: float = Field(
        default=0.0,
        ge=0,
        le=100,
        description="canary: the share of local answers also run generatively in the background, to compare.",
        examples=[10],
    )
    ramp: Ramp | None = Field(
        default=None,
        description="Raise the percentage by itself while the evidence passes; null: no ramp starts by "
        "itself (`rollout ramp start` uses the defaults). Needs `compare_percent` above 0.",
    )

    @model_validator(mode="after")
    def _ramp_can_see(self) -> Rollout:
        if self.ramp is not None and not self.compare_percent:
            raise ValueError("ramp needs compare_percent above 0: canary steps are judged on compared pairs")
        return self


class ModelSource(NamedTuple):
    """The models an engine computes with: which LM, and where each runs (None: in this process
    group). Task types with the same source share one engine; every process derives the same."""

    model: str
    embeddings_url: str | None = None
    scoring_url: str | None = None
    precision: str = "float"  # `Engine.precision`: of the models that run in this process group

    def __str__(self) -> str:
        notes = [
            f"{what} at {url}"
            for what, url in (("encoder", self.embeddings_url), ("LM", self.scoring_url))
            if url
        ]
        notes += [self.precision] if self.precision != "float" else []
        return f"{self.model} ({', '.join(notes)})" if notes else self.model


def _check_url(value: str | None) -> str | None:
    if value is not None and not re.match(r"https?://[^/\s]+", value):
        raise ValueError(f"{value!r} is not an http(s) URL")
    return value.rstrip("/") if value else value


class Remote(Strict):
    """Where the models run when `backend` is `remote`; an address left null runs embedded."""

    embeddings_url: str | None = Field(
        default=None,
        description="An OpenAI-compatible embeddings server (TEI, Infinity, vLLM) serving the sentence "
        "encoder: the base its `/embeddings` is under.",
        examples=["http://127.0.0.1:7997"],
    )
    scoring_url: str | None = Field(
        default=None,
        description="A vLLM server (OpenAI-compatible, with `prompt_logprobs`) serving `model`: the base "
        "its `/completions` is under.",
        examples=["http://127.0.0.1:8000/v1"],
    )

    _urls = field_validator("embeddings_url", "scoring_url")(_check_url)


class Engine(Strict):
    """The local engine for this task type."""

    model: str = Field(
        default="embedded",
        description="The local language model: `embedded` (SmolLM2-135M), a Hugging Face model directory, "
        "or a .gguf file.",
        examples=["models/my-small-lm"],
    )
    backend: Literal["embedded", "remote"] = Field(
        default="embedded",
        description="embedded: the models run in the `serve` process group; remote: behind the serving "
        "engines named in `remote` (the proxy keeps the tokenizer and the small tables).",
        examples=["remote"],
    )
    remote: Remote = Field(
        default_factory=Remote,
        description="The serving engines of `backend: remote`.",
        examples=[{"embeddings_url": "http://127.0.0.1:7997", "scoring_url": "http://127.0.0.1:8000/v1"}],
    )
    precision: Literal["float", "int8"] = Field(
        default="float",
        description="The arithmetic of the models that run in the `serve` process group: float "
        "(bfloat16 or float32, whichever this CPU runs faster), or int8 (their linear layers quantised, "
        "torch dynamic quantisation). Task types that differ in it load the models once each.",
        examples=["int8"],
    )
    scorer: Literal["lm", "embedding", "hybrid"] = Field(
        default="hybrid",
        description="embedding: the sentence encoder chooses; lm: the language model ranks the candidates; "
        "hybrid: the encoder chooses and the language model re-ranks close argument values.",
        examples=["embedding"],
    )
    candidates: Literal["tools", "actions", "schema_enum"] = Field(
        default="tools",
        description="Where the candidates come from: the offered tools, the policy's `actions`, or the "
        "request's `response_format` enum.",
        examples=["actions"],
    )
    allow_no_tool: bool = Field(
        default=True,
        description='"Answer without a tool" is a candidate when the request\'s tool_choice allows it.',
        examples=[False],
    )
    max_candidates: int = Field(
        default=8, ge=2, le=64, description="More candidates than this: choose in two levels.", examples=[6]
    )
    min_confidence: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="Below this confidence the engine abstains and the upstream answers (until learning "
        "has fitted thresholds of its own). With `certify`, the floor of the prior's certified region.",
        examples=[0.6],
    )
    min_margin: float = Field(
        default=0.05,
        ge=0,
        le=1,
        description="Below this margin between the first two candidates the engine abstains.",
        examples=[0.1],
    )
    target_agreement: float = Field(
        default=0.97,
        ge=0.5,
        le=0.999,
        description="The agreement with generative that every served state is certified at (and "
        "learning fits this task type's thresholds to).",
        examples=[0.95],
    )
    certify: bool = Field(
        default=True,
        description="Serve a local answer only inside a region whose agreement with the upstream is "
        "certified at `target_agreement` on shadow pairs (the prior too: no pairs, nothing served "
        "locally). false: the thresholds alone decide, unsafe on an agent the engine has not seen.",
        examples=[False],
    )
    time_budget_ms: int = Field(
        default=250,
        ge=1,
        le=60_000,
        description="Engine time per decision, in milliseconds: past it the engine abstains "
        "(`time_budget`) and the upstream answers.",
        examples=[500],
    )
    learn: bool = Field(
        default=True, description="Learn from this task type's generative answers.", examples=[False]
    )
    tune_encoder: bool = Field(
        default=True,
        description="Learning also tunes the sentence encoder's top layers to this task type's choices "
        "(certified and promoted like any learned state); each pair then keeps the user's words the "
        "encoder read, redacted. false: the encoder stays frozen and pairs keep no text.",
        examples=[False],
    )
    arguments: Literal["local", "generative"] = Field(
        default="local",
        description="Who fills the arguments: the local engine, or the upstream with the chosen tool forced.",
        examples=["generative"],
    )
    encoder: Literal["auto", "english", "multilingual"] = Field(
        default="auto",
        description="The sentence encoder: all-MiniLM-L6-v2 (english), multilingual-e5-small "
        "(multilingual), or per request by the script it is written in (auto: English reads exactly "
        "as `english`).",
        examples=["english"],
    )

    @model_validator(mode="after")
    def _backend_has_addresses(self) -> Engine:
        named = self.remote.embeddings_url or self.remote.scoring_url
        if self.backend == "remote" and not named:
            raise ValueError("backend: remote needs remote.embeddings_url, remote.scoring_url or both")
        if self.backend == "embedded" and named:
            raise ValueError("remote addresses are set but backend is embedded: set backend: remote")
        return self

    @property
    def source(self) -> ModelSource:
        """The engine this task type is served by (the engine set's key)."""
        if self.backend == "embedded":
            return ModelSource(self.model, precision=self.precision)
        return ModelSource(self.model, self.remote.embeddings_url, self.remote.scoring_url, self.precision)


class Slot(Strict):
    """A value an action's `output` takes from the conversation, as `{name}`."""

    type: Literal["string", "integer", "number", "boolean"] = Field(
        default="string", description="The value's JSON type.", examples=["integer"]
    )
    pattern: str | None = Field(
        default=None, description="A regular expression the value matches.", examples=["[A-Z]{2}\\d{6}"]
    )
    enum: list[Any] | None = Field(
        default=None, description="The values allowed.", examples=[["economy", "business"]]
    )
    required: bool = Field(
        default=True,
        description="Without the value in the conversation the engine abstains (it never invents one).",
        examples=[False],
    )

    _regex = field_validator("pattern")(_check_regex)


class Action(Strict):
    """A candidate for agents that prompt for raw JSON instead of using `tools`."""

    id: str = Field(min_length=1, description="A unique name for the action.", examples=["order_status"])
    description: str = Field(
        min_length=1,
        description="What the action does, verb first, in the users' words.",
        examples=["Look up where the user's order is"],
    )
    examples: list[str] = Field(
        default_factory=list,
        description="How users phrase a request for it.",
        examples=[["where is my order", "has my package shipped yet"]],
    )
    output: dict[str, Any] | list[Any] | str = Field(
        description="The answer, rendered as the message content with each `{slot}` filled.",
        examples=[{"action": "order_status", "action_input": {"order_id": "{order_id}"}}],
    )
    slots: dict[str, Slot] = Field(
        default_factory=dict, description="The values `output` names, by name, read from the conversation."
    )
    fill: Literal["local", "generative"] = Field(
        default="local",
        description="local: the engine fills the slots; generative: the choice stays local and the "
        "upstream writes the text.",
        examples=["generative"],
    )


class Breaker(Strict):
    """Sends the task type back to generative when the local path fails in a row, and re-probes later."""

    consecutive_failures: int = Field(
        default=3,
        ge=1,
        le=1000,
        description="Local-path failures in a row (invalid output, engine error, negative feedback) that "
        "trip it.",
        examples=[5],
    )
    count_abstain: bool = Field(
        default=False, description="A low-confidence fallback counts as a failure.", examples=[True]
    )
    count_disagreement: bool = Field(
        default=False,
        description="A disagreement with the generative path counts as a failure.",
        examples=[True],
    )
    reprobe_after_s: float = Field(
        default=600.0,
        ge=0,
        description="Seconds after a trip before serving `reprobe_percent` locally again; 0: stay reverted "
        "until a person acts.",
        examples=[0],
    )
    reprobe_percent: float = Field(
        default=5.0, ge=0, le=100, description="The share served locally while re-probing.", examples=[10]
    )
    restore_after_successes: int = Field(
        default=20,
        ge=1,
        description="Successes while re-probing that restore the percentage from before the trip.",
        examples=[50],
    )
    max_reprobe_after_s: float = Field(
        default=6 * 3600.0,
        ge=0,
        description="A failure while re-probing doubles the wait, up to this many seconds.",
        examples=[3600],
    )


class Feedback(Strict):
    """How a local answer's failure is seen without an explicit `POST /v1/shadowswitch/feedback`."""

    tool_error_regex: str = Field(
        default=r"(?i)\berror\b|exception|not found",
        description="A tool result in the agent's next request that matches this marks the decision "
        "before it as failed.",
        examples=["(?i)failed|invalid"],
    )

    _regex = field_validator("tool_error_regex")(_check_regex)


class Policy(Strict):
    """One task type: how to recognise it, where its generative path goes, how to roll out."""

    task_type: str = Field(
        min_length=1,
        max_length=64,
        pattern=r"^[A-Za-z0-9_.\-]+$",
        description="The task type's name: letters, digits, `_`, `.` and `-`.",
        examples=["pick_tool"],
    )
    description: str = Field(
        default="", description="What the task type is, for people.", examples=["Choose the next tool."]
    )
    match: Match = Field(default_factory=Match, description="How requests are recognised as this task type.")
    upstream: Upstream = Field(default_factory=Upstream, description="The generative path.")
    rollout: Rollout = Field(default_factory=Rollout, description="The starting mode and percentage.")
    engine: Engine = Field(default_factory=Engine, description="The local engine.")
    actions: list[Action] = Field(
        default_factory=list, description="Candidates for `engine.candidates: actions`."
    )
    breaker: Breaker = Field(default_factory=Breaker, description="When the local path is reverted.")
    feedback: Feedback = Field(default_factory=Feedback, description="How failures are noticed.")

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

    upstream: Upstream = Field(
        default_factory=Upstream,
        description="The upstream for unclassified traffic, and every policy's default.",
    )
    rollout: Rollout | None = Field(default=None, description="Defaults for every policy's `rollout`.")
    engine: Engine | None = Field(default=None, description="Defaults for every policy's `engine`.")
    breaker: Breaker | None = Field(default=None, description="Defaults for every policy's `breaker`.")
    feedback: Feedback | None = Field(default=None, description="Defaults for every policy's `feedback`.")


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
