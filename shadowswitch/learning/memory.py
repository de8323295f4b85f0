"""The served state the local engine consults: a nearest-neighbour vote over a task type's exemplars.

The zero-shot ranking knows only the tools' descriptions; the exemplars know what the upstream
chose for requests like this one. The vote is a distribution over the offered candidates from the
closest exemplars whose choice is among them (cosine at least `FLOOR`), and it is mixed into the
zero-shot probabilities with a fitted weight, scaled down when few neighbours are close.

The same neighbours also say whether the engine's *whole call* is to be trusted: each exemplar
records whether the arguments the engine gave the upstream's tool agreed with the upstream's
(`exemplar.py`). The share of close exemplars of the chosen tool whose call agreed (smoothed
toward the task type's rate) multiplies the confidence the threshold is applied to, so that a
request like those where the engine's arguments differed (an optional parameter the upstream
always sets, a value it rewrites) falls back instead of being served wrong.

Plain numpy: 10,000 exemplars cost a (10,000 × 384) product, about a millisecond.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from shadowswitch.engines.local.learned_state import Request, Unreliable
from shadowswitch.learning.deferral import Deferral, features
from shadowswitch.learning.head import Head
from shadowswitch.learning.origins import BELOW

if TYPE_CHECKING:
    from shadowswitch.engines.local.runtime.finetune import Tuned

K = 8  # neighbours that vote
# Cosine below which an exemplar is not "a request like this one", per encoder. MiniLM spreads
# cosines over [0, 1]; e5 compresses them (other-tool pairs' median 0.84). On the 55 BFCL dev
# requests of bench/zh (English for MiniLM, Chinese for e5), two requests above the floor
# share the expected tool in 71% of pairs with MiniLM at 0.6, with e5 in 52% at 0.90 and 20% at
# 0.88: 0.90 is e5's.
FLOORS = {"all-MiniLM-L6-v2": 0.6, "multilingual-e5-small.q4": 0.9}
FLOOR = 0.6  # an encoder not listed
PRIOR_WEIGHT = 1.0  # pseudo-neighbours at the task type's rate in a call-agreement estimate
UNPROVEN = 0.5  # the rate of a tool no pair has shown agreeing or not (Jeffreys): held back
NO_TOOL = "__no_tool__"
TEMPERATURE = 0.05  # closer neighbours count more: weight exp((cos - best) / T)
FULL = 3  # neighbours above the floor for the vote to count in full


@dataclass
class Memory:
    """One task type's served state (version 0 with no exemplars is the prior)."""

    version: int
    encoder: str
    vectors: np.ndarray[Any, Any]  # (n, dim) float32, unit length
    labels: np.ndarray[Any, Any]  # (n,) the upstream's choice per exemplar
    weight: float  # how much the vote counts against the zero-shot ranking
    min_confidence: float  # the fitted threshold on the mixed confidence
    constants: dict[str, dict[str, Any]] = field(default_factory=dict)  # tool → param → value
    usual: dict[str, list[str]] = field(default_factory=dict)  # tool → params the upstream always sets
    calls: np.ndarray[Any, Any] | None = None  # (n,) whole call agreed: 1, 0, or nan (not known)
    call_prior: float = 0.5  # the task type's call agreement, where no neighbour says
    turns: np.ndarray[Any, Any] | None = None  # (n,) `turn_key` of the tools already called
    purposes: np.ndarray[Any, Any] | None = None  # (n, dim) each exemplar's `purpose_of` (None: not read)
    head: Head | None = None  # the trained choice model (None: start from the zero-shot ranking)
    deferral: Deferral | None = None  # the threshold applies to its probability (None: p × gate)
    unreliable: Unreliable = field(default_factory=dict)  # tool → param → origins it abstains on
    tuned: Tuned | None = None  # the encoder's tuned layers its vectors come from (None: frozen)
    tuned_digest: str | None = None  # their content hash: the engine keeps one encoder per digest

    @property
    def floor(self) -> float:
        return floor_for(self.encoder)

    def taken_back(self, sims: np.ndarray[Any, Any], left_out: Sequence[str]) -> list[str]:
        """Every pair teaches the shortlist: a pair whose upstream tool was shortlisted away is kept
        (at zero-shot probability 0, `exemplar.py`), and for a request like it the tool is taken
        back into the shortlist, where the trained head and the neighbours' vote decide on it. Of
        the left-out candidates, those that exemplars as close as a neighbour (the floor) chose."""
        if not len(self.labels) or not left_out:
            return []
        mask = (sims >= self.floor) & np.isin(self.labels, list(left_out))
        return sorted(set(self.labels[mask].tolist()))

    def similarities(
        self,
        query: np.ndarray[Any, Any],
        called: Iterable[str] = (),
        turn: Mapping[str, Any] | None = None,
        opening: np.ndarray[Any, Any] | None = None,
    ) -> np.ndarray[Any, Any]:
        """How alike each exemplar is (`alike`); -1 (never a neighbour) for an exemplar at another
        point of its user turn (other tools already called, a walk or none): see `turn_key`."""
        sims = np.asarray(self.vectors @ query.astype(np.float32))
        if self.purposes is not None and len(self.purposes) == len(sims):
            sims = mean_of(sims, self.purposes @ purpose_of(query, opening).astype(np.float32))
        if self.turns is not None and len(self.turns):
            sims = np.where(self.turns == turn_key(called, turn), sims, -1.0)
        return sims

    def start(self, request: Request) -> dict[str, float]:
        """The probabilities the vote is mixed into: the trained head's, or the zero-shot ones."""
        return self.head.predict(request) if self.head is not None else dict(request.zero_shot)

    def confidence(
        self, chosen: str, p: float, margin: float, gate: float, zero_shot: Mapping[str, float], after: bool
    ) -> float:
        """What the threshold is applied to: the deferral's probability that the whole call agrees,
        or the choice's probability times how often the engine's call agreed for requests this close."""
        if self.deferral is None:
            return p * gate
        top = max(zero_shot, key=lambda c: zero_shot[c]) if zero_shot else None
        x = features(p, margin, zero_shot.get(chosen, 0.0), chosen == top, gate, chosen == NO_TOOL, after)
        return self.deferral.probability(x)

    def mix(self, sims: np.ndarray[Any, Any], zero_shot: Mapping[str, float]) -> dict[str, float]:
        """The starting probabilities (`start`) with this memory's vote mixed in."""
        if not len(self.labels) or self.weight <= 0:
            return dict(zero_shot)
        dist, strength = vote(sims, self.labels, list(zero_shot), self.floor)
        return combine(zero_shot, dist, self.weight * strength)

    def call_rate(self, sims: np.ndarray[Any, Any], tool: str) -> float:
        """How likely the engine's whole call of `tool` agrees, for a request this close."""
        calls = self.calls if self.calls is not None else np.full(len(self.labels), np.nan)
        prior = tool_prior(*self.tally.get(tool, (0.0, 0)), self.call_prior)
        return call_rate(sims, self.labels, calls, tool, prior, self.floor)

    @functools.cached_property
    def tally(self) -> dict[str, tuple[float, int]]:
        """Per tool, its calls that agreed and those judged (`tallies`)."""
        return tallies(self.labels, self.calls) if self.calls is not None else {}

    @functools.cached_property
    def rates(self) -> dict[str, float]:
        """Per tool, how often the engine's calls of it agreed (`tool_rates`)."""
        return tool_rates(self.labels, self.calls) if self.calls is not None else {}

    def unproven(self, tool: str) -> bool:
        """The engine's calls of `tool` did not agree more often than not in this state's pairs
        (none judged: not shown to). A memory without its calls' record holds nothing back."""
        return self.calls is not None and unproven(self.rates.get(tool, UNPROVEN))


def turn_key(called: Iterable[str] | None, turn: Mapping[str, Any] | None = None) -> str:
    """The tools already called for the user turn, and whether a list of ids is being walked
    (`conversation_state`), as one key. The encoder reads the user's turn, so the step that calls a
    tool and the step that answers in text once its result is back look the same, and so do the
    next look-up of a walk and the reply once it ends: only exemplars at the same point of their
    turn are neighbours."""
    walking = "@walk" if (turn or {}).get("open_walks") else ""
    return "|".join(sorted(set(called or ()))) + walking


def purpose_of(vector: np.ndarray[Any, Any], opening: np.ndarray[Any, Any] | None) -> np.ndarray[Any, Any]:
    """What the conversation is about: the user's opening words' vector, or the request's own
    when the user's last turn is the opening (or no opening was stored)."""
    return opening if opening is not None and len(opening) == len(vector) else vector


def purposes(pairs: Sequence[Any], dim: int) -> np.ndarray[Any, Any]:
    """(len(pairs), dim) float32: each pair's `purpose_of`."""
    if not pairs:
        return np.zeros((0, dim), dtype=np.float32)
    return np.stack([purpose_of(p.vector, p.opening) for p in pairs]).astype(np.float32)


def alike(pairs: Sequence[Any], memory: Sequence[Any]) -> np.ndarray[Any, Any]:
    """(len(pairs), len(memory)): the mean of two cosines, of the user's last words and of what the
    conversation is about (`purpose_of`). Once a customer's record is read, "It's Ann Lee, zip
    97652" is like every other customer's answer; whether they asked for a person or for an
    order's status is in their opening words, and it decides the next step."""
    words = np.stack([p.vector for p in pairs]) @ np.stack([m.vector for m in memory]).T
    dim = len(pairs[0].vector)
    return mean_of(words, purposes(pairs, dim) @ purposes(memory, dim).T)


def mean_of(words: np.ndarray[Any, Any], purpose: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The two cosines weigh alike: the words say what is asked now, the purpose what for."""
    return np.asarray((words + purpose) / 2)


def floor_for(encoder: str) -> float:
    return FLOORS.get(encoder, FLOOR)


def vote(
    sims: np.ndarray[Any, Any],
    labels: np.ndarray[Any, Any],
    candidates: Sequence[str],
    floor: float = FLOOR,
) -> tuple[dict[str, float], float]:
    """The neighbours' distribution over `candidates`, and its strength in [0, 1]."""
    mask = np.isin(labels, list(candidates)) & (sims >= floor)
    if not mask.any():
        return {}, 0.0
    close, names = sims[mask], labels[mask]
    top = np.argsort(-close)[:K]
    close, names = close[top], names[top]
    weights = np.exp((close - close.max()) / TEMPERATURE)
    dist: dict[str, float] = {}
    for name, w in zip(names.tolist(), weights.tolist(), strict=True):
        dist[name] = dist.get(name, 0.0) + w
    total = sum(dist.values())
    return {k: v / total for k, v in dist.items()}, min(1.0, len(top) / FULL)


def tallies(labels: np.ndarray[Any, Any], calls: np.ndarray[Any, Any]) -> dict[str, tuple[float, int]]:
    """Per tool, the engine's calls of it that agreed and those judged (known)."""
    known = ~np.isnan(calls)
    out: dict[str, tuple[float, int]] = {}
    for tool in set(labels[known].tolist()):
        mine = known & (labels == tool)
        out[tool] = (float(calls[mine].sum()), int(mine.sum()))
    return out


def tool_prior(agreed: float, judged: int, prior: float) -> float:
    """What a call of a tool is expected to do where no close neighbour says: its own record,
    with `PRIOR_WEIGHT` pseudo-calls at the task type's rate `prior`. At the task type's rate, a
    tool whose 40 calls all agreed was capped near 0.95 (its neighbours' weights sum to 3-5),
    below every confident text reply: a region certified at the top held no call."""
    return (agreed + PRIOR_WEIGHT * prior) / (judged + PRIOR_WEIGHT)


def call_rate(
    sims: np.ndarray[Any, Any],
    labels: np.ndarray[Any, Any],
    calls: np.ndarray[Any, Any],
    tool: str,
    prior: float,
    floor: float = FLOOR,
) -> float:
    """The closest exemplars where the upstream chose `tool` and the engine's call of it is known:
    their similarity-weighted share of agreeing calls, with `PRIOR_WEIGHT` pseudo-neighbours at
    `prior` (the tool's own, `tool_prior`). No arguments (`__no_tool__`): 1."""
    if tool == NO_TOOL:
        return 1.0
    mask = (labels == tool) & (sims >= floor) & ~np.isnan(calls)
    if not mask.any():
        return prior
    close, agreed = sims[mask], calls[mask]
    top = np.argsort(-close)[:K]
    weights = np.exp((close[top] - close[top].max()) / TEMPERATURE)
    return float((weights @ agreed[top] + PRIOR_WEIGHT * prior) / (weights.sum() + PRIOR_WEIGHT))


def tool_rates(labels: np.ndarray[Any, Any], calls: np.ndarray[Any, Any]) -> dict[str, float]:
    """Per tool, the share of its pairs where the engine's whole call agreed (where known;
    Jeffreys-smoothed, so one that never agreed in one pair is at 0.25, in two at 0.17)."""
    tally = tallies(labels, calls)
    return {tool: (tally[tool][0] + 0.5) / (tally[tool][1] + 1) for tool in sorted(set(tally) - {NO_TOOL})}


def unproven(rate: float) -> bool:
    """A tool whose calls the engine did not get right more often than not where they were judged,
    or that no pair has judged (Jeffreys-smoothed rate at most one half): its call is not served,
    however sure the choice (`unproven_tool`). A write whose values the engine has not yet read
    right (an address split into its fields, from an earlier turn) would otherwise be served the
    first time the filler finds something for every field, on the look-ups' record: a "zip" of
    "code"; or, its one judged pair no longer judged once the learned pointer is unsure of a
    value, with an optional field the upstream sets left out. The bar of an unreliable value
    origin (`origins.BELOW`), on the whole call."""
    return rate <= BELOW


def combine(zero_shot: Mapping[str, float], dist: Mapping[str, float], alpha: float) -> dict[str, float]:
    return {c: (1 - alpha) * p + alpha * dist.get(c, 0.0) for c, p in zero_shot.items()}
