"""Rank candidates: encoder similarity, LM log-probability, or a calibrated cascade of both."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from shadowswitch.engines.local.calibration import Calibration
from shadowswitch.engines.local.choice.candidates import NO_TOOL_ID, Candidate
from shadowswitch.engines.local.choice.relevance import (
    Coverage,
    agreement,
    metric_match,
    no_tool_level,
    top_margin,
)
from shadowswitch.engines.local.runtime.encoder import TextEncoder
from shadowswitch.engines.local.runtime.lm import ContinuationScorer
from shadowswitch.engines.local.runtime.prompts import choice_fixed, choice_variable, label

CoverageOf = Callable[[dict[str, Any], str], Coverage]  # tool parameters, text → coverage
ReferenceOf = Callable[[torch.Tensor, torch.Tensor], float]  # query, offered tools → similarity

RERANK = 3  # candidates the LM re-ranks in the hybrid cascade
RERANK_PENALTY = 100.0


@dataclass
class Ranking:
    candidates: list[Candidate]
    scores: list[float]
    probs: list[float]
    used_lm: bool = False

    def order(self) -> list[int]:
        return sorted(range(len(self.probs)), key=lambda i: -self.probs[i])


def sharpen(probs: Sequence[float], gain: float) -> list[float]:
    """The same softmax at its temperature divided by `gain`: the order kept, the odds raised to
    the power `gain`."""
    if gain == 1.0:
        return list(probs)
    powered = [p**gain for p in probs]
    total = sum(powered)
    return [p / total for p in powered] if total > 0 else list(probs)


def softmax(scores: Sequence[float], temperature: float) -> list[float]:
    top = max(scores)
    exps = [math.exp((s - top) / max(temperature, 1e-6)) for s in scores]
    total = sum(exps)
    return [e / total for e in exps]


def margin(probs: Sequence[float]) -> float:
    ranked = sorted(probs, reverse=True)
    return ranked[0] - (ranked[1] if len(ranked) > 1 else 0.0)


class Chooser:
    def __init__(
        self,
        encoder: TextEncoder,
        lm: ContinuationScorer,
        cal: Calibration,
        coverage: CoverageOf,
        reference: ReferenceOf,
    ) -> None:
        self.encoder = encoder
        self.lm = lm
        self.cal = cal
        self.coverage = coverage
        self.reference = reference

    def similarities(self, query: torch.Tensor, cands: Sequence[Candidate]) -> list[float]:
        """Cosine of the query with each candidate's text or its best example."""
        texts = [c.text for c in cands] + [e for c in cands for e in c.examples]
        vectors = self.encoder.embed_cached(texts) if texts else None
        sims = (vectors @ query).tolist() if vectors is not None else []
        out, k = [], len(cands)
        for i, c in enumerate(cands):
            out.append(max([sims[i], *sims[k : k + len(c.examples)]]))
            k += len(c.examples)
        return out

    def tool_ranks(self, vector: torch.Tensor | None, cands: Sequence[Candidate]) -> dict[str, float]:
        """How the offered tools rank against another text than the user's last words (the
        agent's last reply, the user's opening request): the embedding scorer's softmax over the
        tools alone. Empty without the text or with fewer than two tools."""
        tools = [c for c in cands if c.id != NO_TOOL_ID]
        if vector is None or len(tools) < 2:
            return {}
        probs = softmax(self.similarities(vector, tools), self.cal.choice_temperature)
        return {c.id: round(p, 4) for c, p in zip(tools, probs, strict=True)}

    def no_tool_similarity(
        self, query: torch.Tensor, text: str, tools: Sequence[Candidate], sims: Sequence[float]
    ) -> float:
        """The "answer directly" level for this request (relevance.py), given the tools' scores."""
        if not self.cal.no_tool_weights or not tools:
            return self.cal.no_tool_similarity
        top = tools[max(range(len(sims)), key=lambda i: sims[i])]
        reference = 0.0
        if self.cal.no_tool_weights.get("reference"):
            reference = self.reference(query, self.encoder.embed_cached([t.text for t in tools]))
        coverage = self.coverage(top.parameters, text)
        match = metric_match(
            agreement(query, self.encoder.embed_cached([top.text])[0]), self.cal.no_tool_metric
        )
        return no_tool_level(coverage, self.cal.no_tool_weights, reference, top_margin(sims), match)

    def embedding(self, query: torch.Tensor, cands: list[Candidate], text: str) -> Ranking:
        tools = [c for c in cands if c.id != NO_TOOL_ID]
        by_id = dict(zip([c.id for c in tools], self.similarities(query, tools), strict=True))
        level = self.no_tool_similarity(query, text, tools, list(by_id.values()))
        scores = [by_id.get(c.id, level) for c in cands]
        return Ranking(cands, scores, softmax(scores, self.cal.choice_temperature))

    def language_model(self, conversation: str, cands: list[Candidate]) -> Ranking:
        end = self.lm.ids(self.lm.format.end_of_turn)
        conts = [self.lm.ids(" " + label(c)) + end for c in cands]
        scored = self.lm.score_after(choice_fixed(cands), choice_variable(conversation), conts)
        scores = [sum(t) / len(t) for t in scored]
        return Ranking(cands, scores, softmax(scores, self.cal.lm_temperature), used_lm=True)

    def hybrid(self, query: torch.Tensor, conversation: str, cands: list[Candidate]) -> Ranking:
        """Embedding first; when its top-two margin is small, the LM re-ranks the top few.

        Only the top few: a prompt listing every tool costs seconds on a CPU.
        """
        first = self.embedding(query, cands, conversation)
        if margin(first.probs) >= self.cal.cascade_margin:
            return first
        top = first.order()[:RERANK]
        lm = self.language_model(conversation, [cands[i] for i in top])
        scores = [s / self.cal.choice_temperature for s in first.scores]
        for i, lm_score in zip(top, lm.scores, strict=True):
            scores[i] += self.cal.lm_weight * lm_score / self.cal.lm_temperature
        for i in set(range(len(cands))) - set(top):
            scores[i] -= RERANK_PENALTY  # not re-ranked: keep them below the re-ranked few
        return Ranking(cands, scores, softmax(scores, 1.0), used_lm=True)

    def shortlist(self, query: torch.Tensor, cands: list[Candidate], size: int) -> list[Candidate]:
        """Level one of a two-level choice: the `size` most similar (answer-directly kept)."""
        if len(cands) <= size:
            return cands
        sims = self.similarities(query, cands)
        ranked = sorted(range(len(cands)), key=lambda i: -sims[i])
        keep = set(ranked[:size]) | {i for i, c in enumerate(cands) if c.id == NO_TOOL_ID}
        return [c for i, c in enumerate(cands) if i in keep]
