"""What the pipeline needs from an engine: small Protocols and the local engine's result."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from shadowswitch.policy.models import ModelSource, Policy, Upstream
from shadowswitch.request import ChatView

TIME_BUDGET = "time_budget"  # the abstention of a decision past its engine time (`engine.time_budget_ms`)

if TYPE_CHECKING:
    from shadowswitch.engines.local.learned_state import LearnedState

ChoiceKind = Literal["tool", "no_tool", "action", "enum"]


@dataclass
class ScoredCandidate:
    id: str  # tool name, action id, enum value as text, or "__no_tool__"
    score: float  # the scorer's raw score
    prob: float  # normalised over the candidates shown to the model


@dataclass
class ChoiceTrace:
    """How a `Choice` was reached: diagnostics for the recorded decision, and what learning keeps.

    `candidates` and `timings_ms` (candidates/scoring/arguments/total) go into the decision row.
    Of a ranked request, learning (`shadowswitch.learning`) keeps the query's encoder vector
    (float32 bytes) and encoder, the agent's last text reply's vector (`context`) and the user's
    opening words' (`opening`), the
    candidates' probabilities before any memory was mixed in (`zero_shot`), the served
    memory's version (0: none), and the values each text or number parameter was offered
    (`values`: learning's value ranking). A choice made by rule has no vector.
    """

    candidates: list[ScoredCandidate] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    vector: bytes | None = field(default=None, repr=False)
    context: bytes | None = field(default=None, repr=False)  # the agent's last reply's vector
    opening: bytes | None = field(default=None, repr=False)  # the user's opening words' vector
    encoder: str | None = None
    zero_shot: dict[str, float] | None = None
    memory_version: int = 0
    values: dict[str, Any] = field(default_factory=dict, repr=False)  # param → `grounding.Read`
    # the tools ranked against the agent's last reply and the user's opening words (`Decider._context_ranks`)
    ranks: dict[str, dict[str, float]] = field(default_factory=dict)


@dataclass
class Choice:
    """The local engine's decision for one request; how it was reached is in `trace`.

    `abstain_reason` set means: do not serve this; hand the request to the
    generative path (low confidence, small margin, nothing to choose from...).
    `fill_generative` means the choice stands but the upstream must write the
    rest (arguments with the tool forced, an action's free text, or the text
    of a no-tool answer). `sources` says where each argument value comes from,
    keyed like `arguments` (`engines.local.arguments.grounding`): the engine
    never serves a value it did not find.
    """

    kind: ChoiceKind
    name: str | None  # tool name / action id / enum value; None for no_tool
    arguments: dict[str, Any] | None = None  # tool arguments, or action slot values
    sources: dict[str, dict[str, Any]] = field(default_factory=dict)  # provenance of each argument
    content: str | None = None  # rendered message content (actions, schema_enum)
    confidence: float = 0.0
    margin: float = 0.0
    abstain_reason: str | None = None
    fill_generative: bool = False
    trace: ChoiceTrace = field(default_factory=ChoiceTrace)


class ModelEngine(Protocol):
    """One model's engine (`engines.local.ChoiceEngine`, or a scripted stand-in in a test).

    It may also have `fill_tool` (see `LocalEngine`); one without cannot fill a tool's arguments."""

    async def decide(self, request: ChatView, policy: Policy, memory: LearnedState | None = None) -> Choice:
        """`memory`: the task type's served learned state, when it has one (passed only then)."""

    @property
    def ready(self) -> bool: ...


class LocalEngine(Protocol):
    """What the pipeline needs of the local path (`EngineSet`, or `NullEngine` when there is none).

    CPU-bound: the pipeline awaits it off the event loop."""

    async def decide(self, request: ChatView, policy: Policy, memory: LearnedState | None = None) -> Choice:
        """The choice for this request, by the engine of the policy's model."""

    async def fill_tool(
        self, request: ChatView, policy: Policy, tool: str, memory: LearnedState | None = None
    ) -> Choice | None:
        """The arguments the policy's engine gives `tool`, without ranking; None if it cannot say."""

    def serves(self, source: ModelSource) -> bool:
        """Is the engine for these models loaded and ready?"""

    @property
    def ready(self) -> bool: ...


class GenerativeEngine(Protocol):
    """The old path: an upstream LLM (LiteLLMEngine). Errors are `UpstreamError`s."""

    async def warm_up(self) -> None:
        """Pay one-off costs (imports, clients) at start-up rather than on the first request."""

    def upstream_model(self, request: dict[str, Any], upstream: Upstream) -> str: ...

    async def complete(self, request: dict[str, Any], upstream: Upstream) -> dict[str, Any]: ...

    async def open_stream(
        self, request: dict[str, Any], upstream: Upstream
    ) -> AsyncIterator[dict[str, Any]]: ...
