"""Fill a chosen tool's arguments from the conversation, never with a value it does not give.

Each value comes with its provenance (`grounding`): a span of the text, the schema's default, a
grammar-decoded value every leaf of which the text holds, or an enum option a phrase means. A
required parameter nothing grounds is reported missing, and the engine abstains with
`missing_value:<param>` (the generative path answers). How the edge cases go:

- A required string or number takes the best value the text offers that scores at least the
  cutoff below which the no-tool decision counts a value as not in the text (`cutoff:<group>`,
  fitted on development data, where it keeps 99.7% of the right required values and refuses 12%
  of the wrong ones); with none, the decoder where only it can meet a pattern, then the default.
- A required boolean the text does not name is its default, else missing (never False).
- A required enum: the option the text names; else the one a short phrase of the text means
  (cosine at least `options.ENUM_SIMILARITY`); else its default; else missing.
- A required array, untyped or free-form object: a list written in the text, else the decoder
  (kept only when grounded), else the default, else missing.
- A nested object is filled like a tool's parameters; a required one missing a required value
  is reported as `outer.inner`; one with no value at all (`{}`) grounds nothing.
- An optional parameter without a grounded value is left out; the same goes for an optional
  object whose values would all be defaults.
- A value invalid against its own schema is dropped (a required one is then missing).

The search for the best assignment is this class; what a single span offers a parameter is in
`values`.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from shadowswitch.engines.local.arguments.extract import Span, extract
from shadowswitch.engines.local.arguments.features import (
    TextIndex,
    features,
    group,
    linear,
    names_param,
)
from shadowswitch.engines.local.arguments.glossary import foreign_flag
from shadowswitch.engines.local.arguments.grounding import (
    Filled,
    Read,
    Value,
    from_decoder,
    from_text,
    grounded,
    of_parts,
)
from shadowswitch.engines.local.arguments.lists import list_spans
from shadowswitch.engines.local.arguments.options import Similarity, enum_value, flag_value
from shadowswitch.engines.local.arguments.params import Param, params_of
from shadowswitch.engines.local.arguments.ranking import Ranking, offered_values, reordered, set_as_learned
from shadowswitch.engines.local.arguments.today import CLOCK, Today, fixed_dates, other_day
from shadowswitch.engines.local.arguments.values import (
    compared_text,
    convert,
    offered,
    order_matches,
    overlap,
    plain,
    schema_default,
    wrapping,
    written_list,
)
from shadowswitch.engines.local.calibration import Calibration
from shadowswitch.engines.local.choice.relevance import cutoffs_of
from shadowswitch.engines.local.knowledge import Knowledge
from shadowswitch.engines.local.languages import in_text
from shadowswitch.engines.local.schema import is_valid

log = logging.getLogger(__name__)

Decode = Callable[[dict[str, Any], str, dict[str, Any]], Any]  # schema, param, filled → value
Rerank = Callable[[str, list[Any]], list[float]]  # param, values → the LM's log-prob of each


@dataclass
class Pair:
    param: Param
    span: Span
    value: Any
    score: float
    features: dict[str, float] = field(default_factory=dict)  # what the score is made of


class ArgumentFiller:
    def __init__(self, similarity: Similarity, cal: Calibration, knowledge: Knowledge | None = None) -> None:
        self.similarity = similarity
        self.cal = cal
        self.knowledge = knowledge if knowledge is not None else Knowledge.load()  # the default tables

    def fill(
        self,
        parameters: dict[str, Any],
        text: str,
        decode: Decode | None = None,
        rerank: Rerank | None = None,
        ranking: Ranking | None = None,
        today: Today = CLOCK,
    ) -> Filled:
        """Arguments for `parameters` taken from `text`, each with its provenance, and the
        required parameters nothing grounds.

        `decode` writes a value with the language model under the parameter's schema, for
        structured values no written list provides. `rerank` asks the language model about a
        required text value the features leave close (`_reranked`). `ranking`: a learned state's
        feature weights per parameter (`learning/values.py`), added to its values' scores.
        `today`: the day relative dates are read from (`today.py`).
        """
        params = params_of(parameters)
        index = TextIndex.of(text)
        spans = extract(text, self.knowledge, today.day)
        if today.unsure:  # which day "tomorrow" is from is not known: only dates written out
            spans = fixed_dates(spans, extract(text, self.knowledge, other_day(today)))
        filled = Filled()
        found = self._scalars(
            [p for p in params if p.kind in SCALARS], spans, index, rerank, ranking, filled.read
        )
        lists = list_spans(text)
        for p in params:
            if p.kind == "object" and p.schema.get("properties"):
                self._object(p, text, decode, filled)
                continue
            value = found.get(p.name) or self._read(p, index, spans, lists)
            if value is not None and not is_valid(value[0], p.schema):
                value = None
            if value is None and p.required:
                value = self._decoded(p, text, filled.arguments, decode) or schema_default(p)
            if value is not None:
                filled.put(p.name, value)
            elif p.required:
                filled.missing.append(p.name)
        return filled

    def _read(self, p: Param, index: TextIndex, spans: list[Span], lists: list[Span]) -> Value | None:
        """What the text says for a parameter that is not a plain string or number."""
        if p.kind == "enum":
            return enum_value(p, index, spans, self.similarity, self.cal.meaning_similarity)
        if p.kind == "boolean":
            found = flag_value(p, index)
            if found is None and in_text(index.text):
                found = foreign_flag(p, spans, index.text, self.similarity, self.cal.meaning_similarity)
            return found
        if p.kind in STRUCTURED:
            return written_list(p, lists, index.text)
        return None

    def _object(self, p: Param, text: str, decode: Decode | None, filled: Filled) -> None:
        """A nested object, filled like a tool's parameters. An optional one is sent only when
        the text gave it a value (not defaults alone); a required one with nothing in it, or
        missing a required value, falls back to its own default, else is missing."""
        sub = self.fill(p.schema, text, decode)
        told = any(s["source"] != "default" for s in sub.sources.values())
        usable = not sub.missing and is_valid(sub.arguments, p.schema)
        if usable and (told or (p.required and sub.sources)):
            filled.put(p.name, (sub.arguments, of_parts(sub.sources, text)))
        elif p.required and (default := schema_default(p)) is not None:
            filled.put(p.name, default)
        elif p.required:
            filled.missing.append(f"{p.name}.{sub.missing[0]}" if sub.missing else p.name)

    def _decoded(self, p: Param, text: str, args: dict[str, Any], decode: Decode | None) -> Value | None:
        """The grammar decoder's value, where only it can write one (a structured value, a
        pattern), kept when the text holds every leaf of it."""
        if decode is None or not (p.kind in STRUCTURED or (p.kind in SCALARS and not plain(p))):
            return None
        try:
            value = decode(p.schema, p.name, dict(args))
        except ValueError as exc:  # the model did not finish a valid value in budget
            log.debug("decoding %s failed: %s", p.name, exc)
            return None
        if not grounded(value, text):
            log.debug("decoded %s=%r is not in the text", p.name, value)
            return None
        return value, from_decoder()

    def compared_texts(self, text: str) -> list[str]:
        """Every value of `text` as the encoder compares it with a parameter (`_pairs` sends each
        parameter's best few): the decision's first encoder pass takes them with its query."""
        return [compared_text(s, text) for s in extract(text, self.knowledge)]

    def coverage(self, parameters: dict[str, Any], text: str) -> list[tuple[str, float | None]]:
        """The group and best value score of each required text or number parameter (None: no
        value of its type in the text); the relevance check reads it to tell "cannot call" apart."""
        required = [p for p in params_of(parameters) if p.required and p.kind in SCALARS]
        if not required:
            return []
        pairs = self._pairs(required, extract(text, self.knowledge), TextIndex.of(text))
        return [
            (group(p), max((x.score for x in pairs if x.param.name == p.name), default=None))
            for p in required
        ]

    def _scalars(
        self,
        params: list[Param],
        spans: list[Span],
        index: TextIndex,
        rerank: Rerank | None = None,
        ranking: Ranking | None = None,
        read: dict[str, Read] | None = None,
    ) -> dict[str, Value]:
        """String and number values, each with the span of text it was read from; what each
        parameter was offered goes into `read`."""
        scored = self._pairs(params, spans, index)
        if rerank is not None and self.cal.value_lm_weight > 0:
            below = [x for x in scored if not self._convincing(x)]  # kept for a learned ranking
            convincing = [x for x in scored if self._convincing(x)]
            scored = self._reranked(params, convincing, rerank) + below
        base = {id(x): x.score for x in scored}
        if ranking:  # a learned ranking may put first a value the filler found below its cutoff
            scored = reordered(scored, ranking)
            base = {id(x): score for x, score in zip(scored, base.values(), strict=True)}
        decided = set_as_learned(params, scored, base, ranking or {})
        pairs = [x for x in scored if self._convincing(x) and decided.get(x.param.name, x) is x]
        chosen = self._joint(params, pairs, decided)
        if chosen is None:
            chosen = self._greedy(pairs, decided)
        if read is not None:
            read.update(offered_values(scored, chosen, base))
        return {
            name: (pair.value, from_text(index.text, pair.span.start, pair.span.end))
            for name, pair in chosen.items()
        }

    def _greedy(self, pairs: list[Pair], decided: dict[str, Pair | None]) -> dict[str, Pair]:
        """Best pair first, no two sharing text: where the joint search would take too long."""
        chosen: dict[str, Pair] = {}
        for pair in sorted(pairs, key=lambda x: -x.score):
            p = pair.param
            if p.name in chosen or any(overlap(pair.span, c.span) for c in chosen.values()):
                continue
            if not p.required and pair.score < self._threshold(p, decided):
                continue
            chosen[p.name] = pair
        return chosen

    def _joint(
        self, params: list[Param], pairs: list[Pair], decided: dict[str, Pair | None]
    ) -> dict[str, Pair] | None:
        """The assignment with the highest total score: each parameter takes one of its best
        values or none (an optional one at its threshold's score), no two sharing text. Greedy,
        best pair first, lets one strong pair take the value another parameter needed more."""
        options: list[list[tuple[float, Pair | None]]] = []
        for p in params:
            mine = sorted((x for x in pairs if x.param.name == p.name), key=lambda x: -x.score)
            empty = -UNFILLED if p.required else self._threshold(p, decided)
            options.append([(x.score, x) for x in mine[:JOINT_OPTIONS]] + [(empty, None)])
        if math.prod(len(o) for o in options) > JOINT_LIMIT:
            return None
        best: tuple[float, list[Pair]] = (-math.inf, [])

        def search(i: int, total: float, chosen: list[Pair]) -> None:
            nonlocal best
            if i == len(options):
                if total > best[0]:
                    best = (total, list(chosen))
                return
            for score, pair in options[i]:
                if pair is not None and any(overlap(pair.span, c.span) for c in chosen):
                    continue
                search(i + 1, total + score, [*chosen, pair] if pair else chosen)

        search(0, 0.0, [])
        return {pair.param.name: pair for pair in best[1]}

    def _reranked(self, params: list[Param], pairs: list[Pair], rerank: Rerank) -> list[Pair]:
        """A required text parameter whose best values score within `value_lm_margin` of each
        other: the language model's log-probability of each of its best few, as the parameter's
        value in the call, is added to their scores (`value_lm_weight`). On development data it
        told "lit" from "Urban Dictionary" and a quoted address from the clause naming it; on
        numbers it did worse than the features, so they are left alone; nor are values with
        Chinese in them (the small LM's log-probabilities do not compare across the scripts)."""
        bonus: dict[tuple[str, Any], float] = {}
        for p in (p for p in params if p.required and p.kind == "string"):
            top = close_values(pairs, p.name, self.cal.value_lm_margin)
            if any(in_text(str(v)) for v in top):
                continue  # the LM reads Chinese as many byte tokens: it would always prefer the Latin value
            for value, lm in zip(top, rerank(p.name, top) if top else [], strict=True):
                bonus[p.name, value] = self.cal.value_lm_weight * lm
        return [replace(x, score=x.score + bonus.get((x.param.name, x.value), 0.0)) for x in pairs]

    def _convincing(self, pair: Pair) -> bool:
        """A required value must score at least its group's cutoff, below which the no-tool
        decision counts it as not in the text (an optional one meets its threshold later)."""
        cutoff = cutoffs_of(self.cal.no_tool_weights).get(group(pair.param), 0.0)
        return not pair.param.required or pair.score >= cutoff

    def _threshold(self, p: Param, decided: dict[str, Pair | None]) -> float:
        """The score of leaving an optional parameter out: fitted per kind of parameter, but where
        the task type's learned weights decided it for this request (`ranking.set_as_learned`):
        its one value then beats none by a hair, so that it never moves another parameter off
        its best value to make room."""
        if p.name in decided:
            chosen = decided[p.name]
            return chosen.score - SETTLED if chosen is not None else UNFILLED
        return self.cal.value_weights.get(f"absent:{group(p)}", self.cal.optional_threshold)

    def _pairs(self, params: list[Param], spans: list[Span], index: TextIndex) -> list[Pair]:
        """Scored pairs; only each parameter's best few (cheap features) reach the encoder."""
        orders = order_matches(params, spans)
        wrappers = wrapping(spans)
        pairs = []
        for p in params:
            typed = [
                (s, v)
                for s in spans
                if (v := convert(p, s)) is not None and not names_param(p, s) and offered(p, s, index.text)
            ]
            if any(s.kind == "currency" for s, _ in typed):  # a named currency is the value, as a code
                typed = [(s, v) for s, v in typed if s.kind == "currency"]
            cheap = [(s, v, self._scored(p, s, index, 0.0, orders, wrappers)[0]) for s, v in typed]
            pairs += [(p, s, v) for s, v, _ in sorted(cheap, key=lambda x: -x[2])[:SHORTLIST]]
        if not pairs:
            return []
        compared = {s: compared_text(s, index.text) for _, s, _ in pairs}
        texts = list(dict.fromkeys(compared.values()))
        sims = self.similarity([p.text for p in params], texts)
        row = {p.name: i for i, p in enumerate(params)}
        col = {t: j for j, t in enumerate(texts)}
        scored = [
            (p, s, v, self._scored(p, s, index, sims[row[p.name]][col[compared[s]]], orders, wrappers))
            for p, s, v in pairs
        ]
        return [Pair(p, s, v, score, feats) for p, s, v, (score, feats) in scored]

    def _scored(
        self,
        p: Param,
        s: Span,
        index: TextIndex,
        sim: float,
        orders: set[tuple[str, int]],
        wrappers: set[Span],
    ) -> tuple[float, dict[str, float]]:
        """The pair's score and the features it is made of (calibration fits on the latter)."""
        feats = features(p, s, index, sim, (p.name, s.start) in orders, s in wrappers)
        return linear(feats, self.cal.value_weights), feats


SCALARS = ("string", "integer", "number")
STRUCTURED = ("array", "object", "any")


JOINT_OPTIONS = 4
JOINT_LIMIT = 4096  # assignments searched at most (3,125 took 2 ms); above, best pair first
UNFILLED = 100.0  # a required parameter left empty makes the engine abstain: any real value beats none
SETTLED = 1e-3  # what an optional value the learned weights set adds to an assignment

SHORTLIST = 8  # values per parameter scored with the encoder (8 against 4: dev formal +1.3 points, chat -0.2)


RERANK_VALUES = 4  # a parameter's best distinct values the language model compares


def close_values(pairs: list[Pair], name: str, margin: float) -> list[Any]:
    """The parameter's best distinct values (at most RERANK_VALUES) when the runner-up scores
    within `margin` of the best; else none."""
    values: list[Any] = []
    scores: list[float] = []
    for x in sorted((x for x in pairs if x.param.name == name), key=lambda x: -x.score):
        if x.value not in values:
            values.append(x.value)
            scores.append(x.score)
        if len(values) == RERANK_VALUES:
            break
    return values if len(values) > 1 and scores[0] - scores[1] < margin else []
