"""What a task type's learned state makes of a ranked request: the shortlist widened with the
candidates it takes back, the trained head's probabilities with the neighbours' vote mixed in, and
how the threshold reads the confidence (the gate, or the deferral's probability)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from shadowswitch.engines.local.choice.candidates import Candidate, CandidateSet
from shadowswitch.engines.local.choice.scoring import Ranking
from shadowswitch.engines.local.conversation import called_this_turn, turn_state
from shadowswitch.engines.local.learned_state import LearnedState, Request
from shadowswitch.policy.models import Policy
from shadowswitch.request import ChatView

Judge = Callable[[str, float, float, float], float]


@dataclass
class Learned:
    gates: dict[str, float] = field(default_factory=dict)  # per candidate: how often its call agreed
    judged: Judge | None = None  # the state's confidence (None: the ranking's probability × gate)

    @classmethod
    def of(
        cls,
        memory: LearnedState | None,
        request: ChatView,
        policy: Policy,
        ranking: Ranking,
        cset: CandidateSet,
        zero_shot: dict[str, float],
        vector: np.ndarray[Any, Any],
        texts: tuple[np.ndarray[Any, Any] | None, np.ndarray[Any, Any] | None],
        ranks: dict[str, dict[str, float]] | None = None,
    ) -> Learned:
        """Re-rank `ranking` in place with `memory` (no state: as it is). `vector`: the user's
        words; `texts`: the vectors of the agent's last reply and of the user's opening words, the
        context the trained head reads (None: no such text); `ranks`: the tools ranked against
        them (`Decider._context_ranks`)."""
        if memory is None:
            return cls()
        called = called_this_turn(request, policy.feedback.tool_error_regex)
        state = turn_state(request, policy.feedback.tool_error_regex)
        sims = memory.similarities(vector, called, state.conversation, texts[1])
        taken = memory.taken_back(sims, [c.id for c in cset.candidates if c.id not in zero_shot])
        _widened(ranking, [c for c in cset.candidates if c.id in taken], zero_shot)
        asked = Request(
            vector,
            zero_shot,
            frozenset(called),
            state.last_tool,
            state.last_error,
            state.step,
            turn={**state.conversation, "ranks": ranks or {}},
            context=texts[0],
            opening=texts[1],
        )
        mixed = memory.mix(sims, memory.start(asked))
        ranking.probs = [mixed[c.id] for c in ranking.candidates]
        gates = {c.id: memory.call_rate(sims, c.id) for c in ranking.candidates}
        return cls(gates, partial(memory.confidence, zero_shot=zero_shot, after=bool(called)))


def _widened(ranking: Ranking, taken: list[Candidate], zero_shot: dict[str, float]) -> None:
    """The shortlist with the candidates the learned state takes back (`LearnedState.taken_back`),
    at zero-shot probability 0: the trained head and the neighbours' vote decide on them."""
    low = min(ranking.scores, default=0.0) - 1.0
    for candidate in taken:
        ranking.candidates.append(candidate)
        ranking.scores.append(low)
        ranking.probs.append(0.0)
        zero_shot[candidate.id] = 0.0
