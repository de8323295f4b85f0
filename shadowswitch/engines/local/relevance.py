"""Should the agent answer without a tool? The "answer directly" candidate's score.

A tool is wrong when nothing offered matches the request (low similarity) or when the best
match cannot be called from what the user said (its required values are not in the text):
an agent then answers or asks instead of inventing arguments. The weights are fitted on
development data by `calibrate`, in the units of cosine similarity so that the no-tool
candidate competes with the tools under one softmax.
"""

from __future__ import annotations

from collections.abc import Sequence

# Features: a bias and the share of unfilled required values. Tried and dropped (weight ~0 on
# the development data): number of tools, query length, tool-name similarity, lexical overlap,
# and "the tool has no required value" apart from the bias.


def no_tool_features(coverage: Sequence[float | None], cutoff: float = 0.0) -> dict[str, float]:
    """`coverage`: the best value score of each required text/number parameter of the top
    tool (None when the text holds no value of its type); below `cutoff` is not convincing."""
    unfilled = sum(1 for s in coverage if s is None or s < cutoff)
    return {"bias": 1.0, "unfilled": unfilled / max(len(coverage), 1)}


def no_tool_level(coverage: Sequence[float | None], weights: dict[str, float]) -> float:
    """The no-tool candidate's score, in units of cosine similarity."""
    features = no_tool_features(coverage, weights.get("cutoff", 0.0))
    return sum(weights.get(k, 0.0) * v for k, v in features.items())
