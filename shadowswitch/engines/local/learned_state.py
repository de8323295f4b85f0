"""What the engine asks of a task type's learned state, and the learned values it applies.

`learning/` builds the state from shadow pairs (`learning.memory.Memory` implements
`LearnedState`) and imports the engine; the engine reads a state only through this interface and
never imports `learning/`. A state ranks the request as its trained choice model reads it
(`Request`), mixes its neighbours' vote into the probabilities, gates the confidence by how often
the engine's whole call agreed for requests this close, and carries per tool the values the
filler applies (`arguments/learned.py`): a constant, a `Transform` of the value read from the
text, or a `Ranked` re-ordering of the values the text offers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from shadowswitch.engines.local.choice.candidates import NO_TOOL_ID

if TYPE_CHECKING:  # learning reads states without torch
    from shadowswitch.engines.local.runtime.finetune import Tuned

Weights = dict[str, float]  # feature → weight (`base`: the filler's score)
Unreliable = dict[str, dict[str, tuple[str, ...]]]  # tool → param → origins the state abstains on
POINTER = "*"  # the tool and parameter key of the shared pointer weights (`learning.values.fit_pointer`)
SURE = "sure"  # ... and beside it, "tool.param" → the margin its first offer is served at
SET = "set:"  # in a parameter's ranking, "set:<feature>": the weights of setting an optional one


@dataclass(frozen=True)
class Request:
    """A request to decide, as the trained choice model reads it (the serving side of
    `learning.head.Example`)."""

    vector: np.ndarray[Any, Any]
    zero_shot: dict[str, float]
    blocked: frozenset[str] = frozenset()
    last_tool: str | None = None
    last_error: bool = False
    step: int = 0
    label: str = NO_TOOL_ID  # not read when predicting
    turn: Mapping[str, Any] = field(default_factory=dict)  # the conversation's state
    context: np.ndarray[Any, Any] | None = None  # the agent's last text reply's vector (None: none)
    opening: np.ndarray[Any, Any] | None = None  # the user's opening words' vector (None: none)


class LearnedState(Protocol):
    """One task type's served state, as the decider and the filler read it."""

    @property
    def version(self) -> int: ...
    @property
    def encoder(self) -> str: ...  # the encoder its vectors come from: another's are not comparable
    @property
    def min_confidence(self) -> float: ...  # the fitted threshold on the mixed confidence
    @property
    def constants(self) -> dict[str, dict[str, Any]]: ...  # tool → param → learned value
    @property
    def usual(self) -> dict[str, list[str]]: ...  # tool → params the upstream always sets
    @property
    def unreliable(self) -> Unreliable: ...
    @property
    def tuned(self) -> Tuned | None: ...  # the encoder layers its vectors are read with (None: frozen)
    @property
    def tuned_digest(self) -> str | None: ...  # their content hash

    def similarities(
        self,
        query: np.ndarray[Any, Any],
        called: Iterable[str] = (),
        turn: Mapping[str, Any] | None = None,
        opening: np.ndarray[Any, Any] | None = None,
    ) -> np.ndarray[Any, Any]:
        """How alike each exemplar at the same point of its user turn is: the query's words and
        the conversation's opening (None: the query is the opening)."""
        ...

    def taken_back(self, sims: np.ndarray[Any, Any], left_out: Sequence[str]) -> list[str]:
        """Of the candidates the shortlist left out, those that exemplars this close chose."""
        ...

    def start(self, request: Request) -> dict[str, float]:
        """The probabilities the vote is mixed into."""
        ...

    def mix(self, sims: np.ndarray[Any, Any], zero_shot: Mapping[str, float]) -> dict[str, float]:
        """The starting probabilities with the neighbours' vote mixed in."""
        ...

    def call_rate(self, sims: np.ndarray[Any, Any], tool: str) -> float:
        """How likely the engine's whole call of `tool` agrees, for a request this close."""
        ...

    def unproven(self, tool: str) -> bool:
        """The engine's calls of `tool` agreed with the upstream's too rarely to serve one."""
        ...

    def confidence(
        self, chosen: str, p: float, margin: float, gate: float, zero_shot: Mapping[str, float], after: bool
    ) -> float:
        """What the threshold is applied to."""
        ...


@dataclass(frozen=True)
class Transform:
    """A parameter's learned value that is a rewrite of the grounded one, not a constant."""

    name: str


@dataclass(frozen=True)
class Ranked:
    """A parameter's learned value that re-orders the text's values; `then` is its other learned
    value (a transform of the value picked), or None."""

    weights: tuple[tuple[str, float], ...]
    then: Any = None

    @property
    def table(self) -> Weights:
        return dict(self.weights)


def _unwrapped(value: Any) -> Any:
    return value.then if isinstance(value, Ranked) else value


def constant_values(learned: Mapping[str, Any]) -> dict[str, Any]:
    """A tool's learned values that are constants (its transforms and rankings left out)."""
    values = {k: _unwrapped(v) for k, v in learned.items()}
    return {k: v for k, v in values.items() if v is not None and not isinstance(v, Transform)}


def transforms_of(learned: Mapping[str, Any]) -> dict[str, str]:
    """A tool's learned transforms: param → rewrite name."""
    values = {k: _unwrapped(v) for k, v in learned.items()}
    return {k: v.name for k, v in values.items() if isinstance(v, Transform)}


def rankings_of(learned: Mapping[str, Any]) -> dict[str, dict[str, float]]:
    """A tool's learned value rankings: param → feature weights (`learning/values.py`) and, for an
    optional parameter, the weights of setting it (under `SET`, `learning/optional.py`)."""
    return {k: v.table for k, v in learned.items() if isinstance(v, Ranked)}


def setting(weights: Mapping[str, float]) -> Weights:
    """The weights of setting an optional parameter in its ranking's (feature → weight; "": the
    bias), empty when none is learned."""
    return {k[len(SET) :]: w for k, w in weights.items() if k.startswith(SET)}


def sets(weights: Mapping[str, float], features: Mapping[str, float]) -> bool:
    """Whether the learned weights (`setting`) set an optional parameter whose best value has
    these features (`arguments/ranking.ranked_features`): more likely than not, by the upstream's
    pairs."""
    return weights.get("", 0.0) + sum(weights.get(k, 0.0) * v for k, v in features.items() if k) >= 0


@dataclass(frozen=True)
class Pointer:
    """A state's learned pointer (`learning.values.fit_pointer`): weights shared by every tool and
    parameter, and per tool and parameter the margin its first offer is sure at, where its pairs
    showed the pointer right that often (elsewhere the engine's fixed margin applies)."""

    weights: Weights
    margins: Mapping[str, float] = field(default_factory=dict)

    def margin(self, tool: str, param: str) -> float | None:
        """The learned margin of `tool`'s `param`, None where the fixed rule applies."""
        return self.margins.get(f"{tool}.{param}")


def pointer_of(constants: Mapping[str, Mapping[str, Any]]) -> Pointer | None:
    """The state's learned pointer, None when it learned none."""
    ranked = rankings_of(constants.get(POINTER, {}))
    weights = ranked.get(POINTER)
    return Pointer(weights, ranked.get(SURE, {})) if weights else None
