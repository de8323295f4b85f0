"""The constrained-choice engine: candidates by rule, ranking by model, arguments by extraction.

The one path of a decision (batch, rank, threshold, fill, time), with the model wiring it needs;
its parts live in choice/, arguments/, runtime/ and outputs.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import torch

from shadowswitch.engines.base import TIME_BUDGET, Choice, ChoiceTrace, ScoredCandidate
from shadowswitch.engines.local.arguments.elsewhere import read_elsewhere
from shadowswitch.engines.local.arguments.examples import like_examples
from shadowswitch.engines.local.arguments.filler import ArgumentFiller
from shadowswitch.engines.local.arguments.grounding import at_message
from shadowswitch.engines.local.arguments.learned import held_back, learned_values, with_usual
from shadowswitch.engines.local.arguments.memory import MemoryReader
from shadowswitch.engines.local.arguments.name_parts import split_name
from shadowswitch.engines.local.arguments.params import params_of
from shadowswitch.engines.local.arguments.readings import TurnReadings
from shadowswitch.engines.local.arguments.recall import address, overrule, recall
from shadowswitch.engines.local.arguments.today import stated_today
from shadowswitch.engines.local.calibration import Calibration, load_calibration, prior_for
from shadowswitch.engines.local.choice.candidates import NO_TOOL_ID, Candidate, CandidateSet, build_candidates
from shadowswitch.engines.local.choice.reference import ReferenceTools
from shadowswitch.engines.local.choice.relevance import Coverage, present
from shadowswitch.engines.local.choice.scoring import Chooser, Ranking, margin, sharpen
from shadowswitch.engines.local.conversation import (
    called_this_turn,
    earlier_turns,
    opening_text,
    query_text,
    repeats,
    reply_text,
    results_this_turn,
    value_turn,
)
from shadowswitch.engines.local.conversation_state import conversation_state
from shadowswitch.engines.local.knowledge import Knowledge
from shadowswitch.engines.local.language import unreadable
from shadowswitch.engines.local.learned_choice import Learned
from shadowswitch.engines.local.learned_state import LearnedState, pointer_of, rankings_of
from shadowswitch.engines.local.outputs import action_choice, enum_choice
from shadowswitch.engines.local.runtime import budget
from shadowswitch.engines.local.runtime.bridge import (
    BridgedEncoder,
    BridgedValues,
    LanguageShift,
    load_bridge,
)
from shadowswitch.engines.local.runtime.encoder import Encoder, TextEncoder
from shadowswitch.engines.local.runtime.grammar import SchemaDecoder
from shadowswitch.engines.local.runtime.lm import LanguageModel
from shadowswitch.engines.local.runtime.lru import LRU
from shadowswitch.engines.local.runtime.models import LoadedModels
from shadowswitch.engines.local.runtime.multilingual import MultilingualEncoder
from shadowswitch.engines.local.runtime.prompts import arguments_fixed, arguments_variable
from shadowswitch.engines.local.runtime.remote import RemoteLanguageModel
from shadowswitch.engines.local.schema import is_valid
from shadowswitch.engines.local.timing import Clock
from shadowswitch.engines.local.tuned_reading import TunedReaders
from shadowswitch.policy.models import Policy
from shadowswitch.request import ChatView, canonical_arguments

QUERY_CACHE = 1024  # user turns whose vectors are kept (a few KB each)
DECODE_TOKENS = 32  # a value the LM writes itself is short
VALUES_AHEAD = 16  # a turn's values embedded with its query: a short turn's (one encoder batch)
KIND_OF = {"tools": "tool", "actions": "action", "schema_enum": "enum"}


@dataclass
class Job:
    request: ChatView
    policy: Policy
    memory: LearnedState | None = None  # the task type's learned state, if one is served
    tool: str | None = None  # fill this offered tool's arguments, no ranking (learning's pairs)


class Decider:
    """Decides one request at a time on the calling thread; `Worker` puts it off the event loop."""

    def __init__(
        self,
        models: LoadedModels,
        calibration: Calibration | None = None,
        knowledge: Knowledge | None = None,
        multilingual: bool = False,
        bridge: bool = True,
    ) -> None:
        """`calibration`: the prior (default: the packaged one), kept where it fits the models;
        `knowledge`: the optional tables (default: the general ones, loaded now);
        `multilingual`: read with the multilingual encoder: with `bridge` and a fitted bridge
        (runtime/bridge.py), in the English encoder's space with the English prior; else with
        e5's own vectors and prior (`prior_for`)."""
        self.models = models
        english: TextEncoder = models.remote_encoder or Encoder(models.encoder, models.encoder_tokenizer)
        matrix = load_bridge() if multilingual and bridge else None
        self.gain: Callable[[str], float] | None = None  # bridged: confidence on the English scale
        self.encoder: TextEncoder
        self.values: TextEncoder  # what values and parameters are compared with
        if matrix is not None:
            e5 = MultilingualEncoder(models.multilingual)
            bridged = BridgedEncoder(e5, english, matrix, LanguageShift.load())
            self.encoder, self.values = bridged, BridgedValues(bridged)
            self.gain = bridged.shift.gain
            self.cal = (calibration or load_calibration()).for_models(english.name, models.lm_id)
        elif multilingual:
            self.encoder = self.values = MultilingualEncoder(models.multilingual)
            self.cal = prior_for(self.encoder.name, calibration).for_models(self.encoder.name, models.lm_id)
        else:
            self.encoder = self.values = english
            self.cal = (calibration or load_calibration()).for_models(english.name, models.lm_id)
        self.lm: LanguageModel | RemoteLanguageModel = models.remote_lm or LanguageModel(
            models.lm, models.lm_tokenizer
        )
        self._decoder: SchemaDecoder | None = None
        self.query_vectors: LRU[str, torch.Tensor] = LRU(QUERY_CACHE)
        self.tuned = TunedReaders(self.encoder)
        self.filler = ArgumentFiller(self._similarity, self.cal, knowledge)
        self.memories = MemoryReader(self.filler.knowledge)  # each message read once
        self.readings = TurnReadings()  # earlier user turns, each read once per tool
        # Reference tools are passages: the bridge reads them with the English encoder.
        passages = english if matrix is not None else self.encoder
        self.reference = ReferenceTools.load(passages, models.cache_dir, self.cal.reference_tools)
        # A Chinese value has none of the English cue words value scores reward ("from", "on",
        # quotes around it): bridged, the no-tool check asks only whether a value is in the text.
        coverage = self._presence if matrix is not None else self.filler.coverage
        self.chooser = Chooser(self.encoder, self.lm, self.cal, coverage, self.reference.best)

    def decide_batch(self, jobs: Sequence[Job]) -> list[Choice]:
        """Several requests at once: their queries, and the candidate texts not yet cached,
        share one encoder pass."""
        shared = Clock()
        with torch.inference_mode():
            csets = [build_candidates(j.request, j.policy) for j in jobs]
            shared.lap("candidates")
            texts = [t for cset in csets for c in cset.candidates for t in (c.text, *c.examples)]
            texts += [t for job, cset in zip(jobs, csets, strict=True) for t in self._values_of(job, cset)]
            replies = [reply_text(j.request) for j in jobs]
            vectors = self._queries([*(query_text(j.request) for j in jobs), *filter(None, replies)], texts)
            queries, found = vectors[: len(jobs)], iter(vectors[len(jobs) :])
            contexts = [next(found) if reply else None for reply in replies]
            shared.lap("scoring")
            jobs_ = zip(jobs, queries, csets, contexts, strict=True)
            choices = [self._bounded(j, q, cset, r) for j, q, cset, r in jobs_]
        shared.laps["total"] = sum(shared.laps.values())
        for choice in choices:  # each request carries its share of the shared work
            timings = choice.trace.timings_ms
            for lap, ms in shared.laps.items():
                timings[lap] = round(timings.get(lap, 0.0) + ms / len(jobs), 2)
        return choices

    def _bounded(self, job: Job, query: torch.Tensor, cset: CandidateSet, context: Any) -> Choice:
        """One job of the batch within its policy's time budget; past it, `time_budget`."""
        clock = Clock()
        with budget.bounded(budget.Deadline(budget.allowed(job.policy.engine.time_budget_ms))):
            try:
                if job.tool is None:
                    return self.decide(job.request, job.policy, query, cset, job.memory, context)
                return self.fill_tool(job.request, job.policy, cset, job.tool, job.memory)
            except budget.OverBudget:  # before a tool was chosen (`_bounded_fill` keeps it after)
                kind = KIND_OF[job.policy.engine.candidates]
                clock.lap("scoring")
                return clock.stamp(Choice(kind, job.tool, abstain_reason=TIME_BUDGET))  # type: ignore[arg-type]

    def _values_of(self, job: Job, cset: CandidateSet) -> list[str]:
        """What the no-tool check and the fill compare next (the turn's values, the parameters),
        in the query's pass rather than one of their own: a pass costs milliseconds, however short."""
        if job.tool is not None or cset.forced or not cset.candidates or self.values is not self.encoder:
            return []
        values = self.filler.compared_texts(job.request.last_user_text)
        if len(values) > VALUES_AHEAD:  # a long turn: the no-tool check sends its best few alone
            return []
        return [p.text for c in cset.candidates for p in params_of(c.parameters)] + values

    def _queries(self, queries: list[str], remember: list[str]) -> list[torch.Tensor]:
        """The queries' vectors: an agent's steps after a tool result read the same user turn
        again, so each turn's vector is kept; new ones share one pass with new candidate texts."""
        new = [q for q in dict.fromkeys(queries) if q not in self.query_vectors]
        for text, vector in zip(new, self.encoder.embed(new, remember=remember), strict=True):
            self.query_vectors.put(text, vector)
        vectors = []
        for query in queries:
            vector = self.query_vectors.get(query)
            vectors.append(vector if vector is not None else self.encoder.embed([query])[0])
        return vectors

    def decide(
        self,
        request: ChatView,
        policy: Policy,
        query: Any = None,
        cset: CandidateSet | None = None,
        memory: LearnedState | None = None,
        context: Any = None,
    ) -> Choice:
        """`query`: the vector of the user's words (`query_text`); `context`: of the agent's last
        reply (`reply_text`), None when it has none. Both are computed here when `query` is None."""
        clock = Clock()
        if cset is None:
            cset = build_candidates(request, policy)
        clock.lap("candidates")
        if cset.abstain_reason or cset.forced or not cset.candidates:
            return clock.stamp(self._by_rule(cset, policy))
        if unreadable(request.last_user_text):  # a script no encoder knows: nothing to choose by
            kind = KIND_OF[policy.engine.candidates]
            return clock.stamp(Choice(kind, None, abstain_reason="unknown_language"))  # type: ignore[arg-type]
        if query is None:
            said = reply_text(request)
            vectors = self.encoder.embed([query_text(request), *filter(None, [said])])
            query, context = vectors[0], vectors[1] if said else None
        ranking = self._rank(cset.candidates, request, policy, query)
        if self.gain is not None:  # bridged: the candidates' spread back on the English scale
            ranking.probs = sharpen(ranking.probs, self.gain(query_text(request)))
        zero_shot = {c.id: round(p, 6) for c, p in zip(ranking.candidates, ranking.probs, strict=True)}
        vector = query.float().numpy().astype(np.float32)
        reply = None if context is None else context.float().numpy().astype(np.float32)
        if memory is not None and memory.encoder != self.encoder.name:
            memory = None  # learned with another encoder: its vectors are not comparable
        ranks, opened = self._context_ranks(request, ranking.candidates, context)
        opening = None if opened is None else opened.float().numpy().astype(np.float32)
        words, purpose = self.tuned.read(memory, request, vector, opening)  # a tuned state's reading
        texts = (reply, purpose)
        learned = Learned.of(memory, request, policy, ranking, cset, zero_shot, words, texts, ranks)
        clock.lap("scoring")
        choice = self._complete(ranking, request, policy, memory, learned.gates, learned.judged)
        trace = choice.trace
        trace.vector, trace.encoder, trace.zero_shot = vector.tobytes(), self.encoder.name, zero_shot
        trace.context = None if reply is None else reply.tobytes()
        trace.opening = None if opening is None else opening.tobytes()
        trace.ranks = ranks
        trace.memory_version = memory.version if memory else 0
        clock.lap("arguments")
        return clock.stamp(choice)

    def _context_ranks(
        self, request: ChatView, cands: Sequence[Candidate], context: Any
    ) -> tuple[dict[str, dict[str, float]], Any]:
        """The tools ranked against the agent's last reply and against the user's opening words,
        which the trained head reads: a "yes" says which write follows only with the question it
        answers, and an email address what it is for only with the request before it; and the
        opening words' vector (None: the last user turn is the opening)."""
        opening = opening_text(request)
        vector = self.encoder.embed_cached([opening])[0] if opening else None
        ranks = {
            "reply": self.chooser.tool_ranks(context, cands),
            "opening": self.chooser.tool_ranks(vector, cands),
        }
        return {name: ranked for name, ranked in ranks.items() if ranked}, vector

    def fill_tool(
        self, request: ChatView, policy: Policy, cset: CandidateSet, tool: str, memory: LearnedState | None
    ) -> Choice:
        """The arguments this engine would give `tool` (the upstream's choice, when the engine
        chose another): whether they agree is what learning needs to know of that pair."""
        clock = Clock()
        found = next((c for c in cset.candidates if c.id == tool and c.kind == "tool"), None)
        if found is None:
            return Choice("tool", tool, abstain_reason=f"not_offered: {tool}")
        choice = self._bounded_fill(found, request, policy, memory)
        clock.lap("arguments")
        return clock.stamp(choice)

    def _by_rule(self, cset: CandidateSet, policy: Policy) -> Choice:
        if cset.forced is not None:
            return Choice(
                "no_tool",
                None,
                trace=ChoiceTrace([ScoredCandidate(NO_TOOL_ID, 1.0, 1.0)]),
                confidence=1.0,
                margin=1.0,
                fill_generative=True,
            )
        reason = cset.abstain_reason or "no_candidates"
        return Choice(KIND_OF[policy.engine.candidates], None, abstain_reason=reason)  # type: ignore[arg-type]

    def _rank(self, cands: list[Candidate], request: ChatView, policy: Policy, query: Any) -> Ranking:
        cands = self.chooser.shortlist(query, cands, policy.engine.max_candidates)
        if len(cands) == 1:
            return Ranking(cands, [0.0], [1.0])
        conversation = request.last_user_text
        if policy.engine.scorer == "embedding":
            return self.chooser.embedding(query, cands, conversation)
        if policy.engine.scorer == "lm":
            return self.chooser.language_model(conversation, cands)
        return self.chooser.hybrid(query, conversation, cands)

    def _complete(
        self,
        ranking: Ranking,
        request: ChatView,
        policy: Policy,
        memory: LearnedState | None = None,
        gates: dict[str, float] | None = None,
        judged: Callable[[str, float, float, float], float] | None = None,
    ) -> Choice:
        """`gates`: per candidate, how often the engine's whole call agreed for requests like this
        one (the learned state's neighbours); the confidence the threshold sees is scaled by it, or,
        with `judged` (the learned state's deferral), is its probability that the whole call agrees."""
        order = ranking.order()
        best = ranking.candidates[order[0]]
        candidates = [
            ScoredCandidate(ranking.candidates[i].id, ranking.scores[i], ranking.probs[i]) for i in order
        ]
        gate = (gates or {}).get(best.id, 1.0)
        gap = margin(ranking.probs)
        p = ranking.probs[order[0]]
        confidence = judged(best.id, p, gap, gate) if judged else p * gate
        # Abstain before filling where the ranking alone decides it: the fill (the value LM above
        # all) would only add its time to the generative answer that follows.
        reason = _threshold_reason(confidence, gap, len(candidates), policy, memory)
        if reason is None and best.kind == "tool":
            called = called_this_turn(request, policy.feedback.tool_error_regex)
            if repeats(best.id, called, conversation_state(request)):
                reason = f"repeated_call: {best.id} was already called for this user turn"
        if reason is not None:
            choice = Choice(best.kind, _name(best), abstain_reason=reason)
        else:
            choice = self._bounded_fill(best, request, policy, memory)
        choice.trace.candidates, choice.confidence, choice.margin = candidates, confidence, gap
        return choice

    def _bounded_fill(
        self, best: Candidate, request: ChatView, policy: Policy, memory: LearnedState | None
    ) -> Choice:
        """`_fill` within the decision's time budget; past it, an abstention (`time_budget`)."""
        try:
            budget.check()
            return self._fill(best, request, policy, memory)
        except budget.OverBudget:
            return Choice(best.kind, _name(best), abstain_reason=TIME_BUDGET)

    def _fill(
        self, best: Candidate, request: ChatView, policy: Policy, memory: LearnedState | None = None
    ) -> Choice:
        if best.kind == "no_tool":
            return Choice("no_tool", None, fill_generative=True)
        if best.kind == "action":
            return action_choice(best, request, self.filler)
        if best.kind == "enum":
            return enum_choice(best, request, self.filler)
        if policy.engine.arguments == "generative":
            return Choice("tool", best.id, fill_generative=True)
        message, text = value_turn(request)
        # The LM re-ranks close text values where the policy's scorer uses it (lm, hybrid):
        # about 110-210 ms per parameter asked on 2 cores, so `embedding` stays the fast encoder-only path.
        rerank = partial(self.rerank, best, text) if policy.engine.scorer != "embedding" else None
        asked = with_usual(best.parameters, memory, best.id) if memory else best.parameters
        learned = memory.constants.get(best.id, {}) if memory else {}
        decode = partial(self._decode, best, text)
        today = stated_today(request)  # the day "tomorrow" is read from: the prompt's, or the clock's
        filled = self.filler.fill(asked, text, decode, rerank, rankings_of(learned), today)
        filled.sources = at_message(filled.sources, message)
        fill_text = self.readings.fill_text(self.filler.fill, today)
        read_elsewhere(filled, asked, earlier_turns(request), results_this_turn(request), fill_text)
        split_name(filled, asked)  # "Cyrus Nilsen" is a first name and a last name
        pointer = pointer_of(memory.constants) if memory else None
        values = self.memories.read(request, today)
        overrule(filled, asked, values, pointer, best.id)  # a record's own id over a guess from words
        address(filled, asked, values, pointer, best.id)  # an address's fields from one address
        if filled.missing:  # what the turn does not give: copied from the whole conversation, or missing
            recall(filled, asked, values, pointer, best.id)
        like_examples(filled, asked, request.messages)  # the one token written like INC-1042
        if memory is not None:
            learned_values(filled, best.parameters, learned, memory.version, self.filler.knowledge.region_of)
        args = filled.arguments
        reason = filled.abstain_reason  # a required value the conversation does not give
        if reason is None and memory is not None:  # a value read where usually wrong; a tool unproven
            reason = held_back(filled.sources, request, memory, best.id)
        if reason is None and not is_valid(args, best.parameters):
            reason = "invalid_arguments: no value satisfies the tool's schema"
        elif reason is None and (best.id, canonical_arguments(args)) in request.previous_calls:
            reason = "repeated_call: same tool and arguments as before"
        sources = at_message(filled.sources, message)  # learned transforms keep their span's message
        choice = Choice("tool", best.id, arguments=args, sources=sources, abstain_reason=reason)
        choice.trace.values = filled.read
        return choice

    def _presence(self, parameters: dict[str, Any], text: str) -> Coverage:
        return present(self.filler.coverage(parameters, text))

    def _similarity(self, left: list[str], right: list[str]) -> list[list[float]]:
        vectors = self.values.embed_cached([*left, *right])  # one pass for both
        return (vectors[: len(left)] @ vectors[len(left) :].T).tolist()

    def _decode(
        self, tool: Candidate, text: str, schema: dict[str, Any], param: str, filled: dict[str, Any]
    ) -> Any:
        """Greedy schema-constrained value for one parameter, after the call written so far."""
        budget.check()
        fixed = arguments_fixed(tool.id, tool.parameters)
        variable = arguments_variable(text, tool.id, filled, param)
        if isinstance(self.lm, RemoteLanguageModel):  # the server's grammar decoding
            return self.lm.decode(fixed, variable, schema, max_tokens=DECODE_TOKENS)
        if self._decoder is None:
            self._decoder = SchemaDecoder(self.lm)
        start = self.lm.start(fixed, variable)
        return self._decoder.decode(start, schema, DECODE_TOKENS, budget.check)

    def rerank(self, tool: Candidate, text: str, param: str, values: list[Any]) -> list[float]:
        """The LM's log-probability of each value as `param`'s in the call, values in one batch."""
        budget.check()
        fixed = arguments_fixed(tool.id, tool.parameters)
        variable = arguments_variable(text, tool.id, {}, param)
        scores = self.lm.score_after(fixed, variable, [self.lm.ids(json.dumps(v)) for v in values])
        return [sum(s) for s in scores]

    @property
    def ready(self) -> bool:
        return True


def _threshold_reason(
    confidence: float, gap: float, count: int, policy: Policy, memory: LearnedState | None = None
) -> str | None:
    """The policy's thresholds, or the learned state's (fitted to `engine.target_agreement`)."""
    floor = memory.min_confidence if memory else policy.engine.min_confidence
    min_margin = 0.0 if memory else policy.engine.min_margin
    if confidence < floor:
        return f"low_confidence {confidence:.2f} < {floor}"
    if count > 1 and gap < min_margin:
        return f"small_margin {gap:.2f} < {min_margin}"
    return None


def _name(candidate: Candidate) -> str | None:
    return None if candidate.kind == "no_tool" else candidate.id
