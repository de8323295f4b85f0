"""Should the agent answer without a tool? The "answer directly" candidate's score.

A tool is wrong when nothing offered matches the request (its similarity is not well above
that of the best unrelated reference tool, reference.py) or when the best match cannot be
called from what the user said (its required values are not in the text): an agent then
answers or asks instead of inventing arguments. A learned weighting of the encoder's dimensions
(`metric_match`) refines the similarity itself. The weights are fitted on
development data by `calibrate`, in the units of cosine similarity so that the no-tool
candidate competes with the tools under one softmax.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import torch

from shadowswitch.engines.local.arguments.features import GROUPS

# Features: a bias, the share of unfilled required values, the reference similarity and the
# margin of the best tool over the runner-up (a tool that stands out was likely meant). Tried and
# dropped on the development data: number of tools (it learns that the synthetic no-tool cases
# offer one tool), query length, tool-name similarity and lexical overlap (they trade chat
# requests, written in other words than the tool's, for the formal ones), and "the tool has no
# required value" apart from the bias.

Coverage = Sequence[tuple[str, float | None]]
"""Per required text/number parameter of the top tool: its group (argscore.group) and its best
value score, None when the text holds no value of its type."""


def no_tool_features(
    coverage: Coverage,
    cutoffs: Mapping[str, float] | None = None,
    reference: float = 0.0,
    margin: float = 0.0,
) -> dict[str, float]:
    """A value scoring below its group's cutoff is not convincing: the parameter counts as
    unfilled. Cutoffs differ by group because a number is found with fewer cues than a name.
    `reference` is the request's similarity to the best unrelated reference tool, `margin` the
    best tool's similarity minus the runner-up's (`top_margin`)."""
    cutoffs = cutoffs or {}
    unfilled = sum(1 for group, s in coverage if s is None or s < cutoffs.get(group, 0.0))
    return {
        "bias": 1.0,
        "unfilled": unfilled / max(len(coverage), 1),
        "reference": reference,
        "margin": margin,
    }


def present(coverage: Coverage) -> Coverage:
    """Each value that is in the text at all counts as convincing, whatever the cutoffs: where
    the value scores are not on the scale the cutoffs were fitted for (the bridge, decider.py)."""
    return [(g, None if s is None else math.inf) for g, s in coverage]


def top_margin(similarities: Sequence[float]) -> float:
    """How far the best tool stands above the runner-up; 0.0 with a single tool."""
    ranked = sorted(similarities, reverse=True)
    return ranked[0] - ranked[1] if len(ranked) > 1 else 0.0


def cutoffs_of(weights: Mapping[str, float]) -> dict[str, float]:
    """`cutoff:<group>` weights; a plain `cutoff` (older calibrations) applies to every group."""
    default = weights.get("cutoff", 0.0)
    return {g: weights.get(f"cutoff:{g}", default) for g in GROUPS}


def no_tool_level(
    coverage: Coverage,
    weights: Mapping[str, float],
    reference: float = 0.0,
    margin: float = 0.0,
    match: float = 0.0,
) -> float:
    """The no-tool candidate's score, in units of cosine similarity; `match` is `metric_match`."""
    features = no_tool_features(coverage, cutoffs_of(weights), reference, margin)
    return sum(weights.get(k, 0.0) * v for k, v in features.items()) + match


def agreement(query: torch.Tensor, tool: torch.Tensor) -> torch.Tensor:
    """The elementwise product of the request's and the top tool's unit vectors: their cosine,
    dimension by dimension (calibration stores it per case)."""
    return query.float() * tool.float()


def metric_match(agreement: torch.Tensor, metric: Sequence[float]) -> float:
    """The learned part of the level: a weighted sum of the `agreement`. Cosine weighs every
    dimension of the encoder alike; the weights, fitted on development data, say which
    dimensions tell "this tool is meant" (its topic, its action) from a passing resemblance.
    0.0 without fitted weights."""
    if not metric:
        return 0.0
    return float(agreement @ torch.tensor(metric))
