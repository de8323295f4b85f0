"""What the choice head reads of an example besides its vectors: the shared features, the same
for every candidate whatever the tool (see `head.py` for what each says), and the context vector.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import numpy as np

NO_TOOL = "__no_tool__"
MAX_STEP = 4  # steps beyond this count as this one
FEATURES = (
    "log_zero_shot",
    "usage_cos",
    "called",
    "is_last",
    "is_last_error",
    "none_after_call",
    "none_step",
    "none_done",
    "state_usage_cos",
    # the conversation's state (`conversation_state.py`)
    "none_after_tool",
    "none_after_user",
    "tool_confirmed",
    "none_declined",
    "last_walking",
    "none_walking",
    "none_answered",
    "last_walking_found",
    "none_walking_found",
    # the cosine of the agent's last reply to the candidate's reply usage vector
    "reply_usage_cos",
    # the tool's rank against the agent's last reply when the user just answered it, and against
    # the user's opening words (the zero-shot scorer's, on those texts: any tool has them)
    "reply_rank_answered",
    "opening_rank",
    # log P(candidate | the conversation's state) from the training pairs' counts (`state_counts`)
    "state_share",
)
LOG_FLOOR = float(np.log(1e-4))


class Example(Protocol):
    """What the head reads of a pair (`fit.Pair` has it)."""

    @property
    def vector(self) -> np.ndarray[Any, Any]: ...
    @property
    def label(self) -> str: ...
    @property
    def zero_shot(self) -> dict[str, float]: ...
    @property
    def blocked(self) -> frozenset[str]: ...
    @property
    def last_tool(self) -> str | None: ...
    @property
    def last_error(self) -> bool: ...
    @property
    def step(self) -> int: ...
    @property
    def turn(self) -> Mapping[str, Any]: ...
    @property
    def context(self) -> np.ndarray[Any, Any] | None: ...  # the agent's last reply's vector
    @property
    def opening(self) -> np.ndarray[Any, Any] | None: ...  # the user's opening words' vector


def context_of(e: Example, dim: int) -> np.ndarray[Any, Any]:
    """The example's context vector, zero when it has none (no reply yet, or stored before)."""
    return _or_zeros(e.context, dim)


def opening_of(e: Example, dim: int) -> np.ndarray[Any, Any]:
    """The example's opening vector, zero when it has none (the last user turn is the opening,
    or stored before)."""
    return _or_zeros(e.opening, dim)


def _or_zeros(vector: np.ndarray[Any, Any] | None, dim: int) -> np.ndarray[Any, Any]:
    if vector is None or len(vector) != dim:
        return np.zeros(dim)
    return np.asarray(vector, dtype=np.float64)


def shared_features(
    e: Example, c: str, usage_cos: float, state_cos: float, reply_cos: float, state_share: float
) -> list[float]:
    p = e.zero_shot.get(c, 0.0)
    none = c == NO_TOOL
    is_last = c == e.last_tool
    return [
        max(LOG_FLOOR, float(np.log(p))) if p > 0 else LOG_FLOOR,
        usage_cos,
        float(c in e.blocked),
        float(is_last),
        float(is_last and e.last_error),
        float(none and bool(e.blocked)),
        float(none) * min(e.step, MAX_STEP) / MAX_STEP,
        # What the user's words ask for has run already: the agent answers in text.
        float(none) * max((e.zero_shot.get(b, 0.0) for b in e.blocked), default=0.0),
        state_cos,
        *_conversation(e.turn, c, none, is_last),
        reply_cos,
        *_ranks(e.turn, c),
        state_share,
    ]


def _ranks(turn: Mapping[str, Any], c: str) -> list[float]:
    """The candidate's rank against the agent's last reply, when the user's message answers it
    ("Shall I cancel order 1234?" "yes"), and against the user's opening words (0: not a tool,
    or no such text)."""
    ranks = turn.get("ranks") or {}
    reply = float((ranks.get("reply") or {}).get(c, 0.0)) if turn.get("last_role") == "user" else 0.0
    return [reply, float((ranks.get("opening") or {}).get(c, 0.0))]


def _conversation(turn: Mapping[str, Any], c: str, none: bool, is_last: bool) -> list[float]:
    """The conversation state's features of candidate `c` (in `FEATURES` order): a reply after a
    tool's result or after the user's turn; a call after "yes" to the agent's confirmation, a
    reply after "no"; the same tool again, or no reply, while a list is being walked; a reply
    when the user just answered the agent's question."""
    confirm, walking = turn.get("confirm", ""), float(bool(turn.get("open_walks")))
    last_role = turn.get("last_role", "")
    found = float(turn.get("found", 0.0))
    return [
        float(none and last_role == "tool"),
        float(none and last_role == "user"),
        float(not none and confirm in ("yes", "again")),
        float(none and confirm == "no"),
        float(is_last) * walking,
        float(none) * walking,
        float(none and last_role == "user" and bool(turn.get("asked"))),
        float(is_last) * walking * found,
        float(none) * walking * found,
    ]
