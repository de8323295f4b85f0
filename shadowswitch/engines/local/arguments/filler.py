"""Fill a chosen tool's arguments so the call always validates against the tool's JSON schema."""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from shadowswitch.engines.local.arguments.dates import asked_format, in_format
from shadowswitch.engines.local.arguments.extract import Span, extract
from shadowswitch.engines.local.arguments.features import (
    TextIndex,
    example_shapes,
    features,
    group,
    indifferent,
    linear,
    mentioned,
    names_param,
    negated,
)
from shadowswitch.engines.local.arguments.lists import list_spans
from shadowswitch.engines.local.arguments.params import Param, params_of, stem
from shadowswitch.engines.local.calibration import Calibration
from shadowswitch.engines.local.knowledge import Knowledge
from shadowswitch.engines.local.schema import is_valid, minimal_instance

log = logging.getLogger(__name__)

Similarity = Callable[[list[str], list[str]], list[list[float]]]  # params × values cosine
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
    ) -> dict[str, Any]:
        """Arguments valid against `parameters`, taken from `text` where it offers values.

        `decode` writes a value with the language model under the parameter's schema; it is
        the fallback for structured values no written list provides. `rerank` asks the language
        model about a required text value the features leave close (`_reranked`).
        """
        params = params_of(parameters)
        index = TextIndex.of(text)
        spans = extract(text, self.knowledge)
        args = self._scalars([p for p in params if p.kind in SCALARS], spans, index, rerank)
        lists = list_spans(text)
        for p in params:
            if p.kind == "enum":
                _put(args, p, self._enum(p, index, spans))
            elif p.kind == "boolean":
                _put(args, p, choose_bool(p, index))
            elif p.kind == "object" and p.schema.get("properties") and p.name not in args:
                _put(args, p, self._object(p, text, decode))
            elif p.kind in ("array", "object", "any") and p.name not in args:
                _put(args, p, self._structured(p, lists, args, decode))
        return repair(args, params, parameters, decode)

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
        self, params: list[Param], spans: list[Span], index: TextIndex, rerank: Rerank | None = None
    ) -> dict[str, Any]:
        pairs = self._pairs(params, spans, index)
        if rerank is not None and self.cal.value_lm_weight > 0:
            pairs = self._reranked(params, pairs, rerank)
        joint = self._joint(params, pairs)
        if joint is not None:
            return joint
        args: dict[str, Any] = {}
        used: list[Span] = []
        for pair in sorted(pairs, key=lambda x: -x.score):
            p = pair.param
            if p.name in args or any(_overlap(pair.span, u) for u in used):
                continue
            if not p.required and pair.score < self._threshold(p):
                continue
            args[p.name] = pair.value
            used.append(pair.span)
        return args

    def _joint(self, params: list[Param], pairs: list[Pair]) -> dict[str, Any] | None:
        """The assignment with the highest total score: each parameter takes one of its best
        values or none (an optional one at its threshold's score), no two sharing text. Greedy,
        best pair first, lets one strong pair take the value another parameter needed more."""
        options: list[list[tuple[float, Pair | None]]] = []
        for p in params:
            mine = sorted((x for x in pairs if x.param.name == p.name), key=lambda x: -x.score)
            empty = -UNFILLED if p.required else self._threshold(p)
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
                if pair is not None and any(_overlap(pair.span, c.span) for c in chosen):
                    continue
                search(i + 1, total + score, [*chosen, pair] if pair else chosen)

        search(0, 0.0, [])
        return {pair.param.name: pair.value for pair in best[1]}

    def _reranked(self, params: list[Param], pairs: list[Pair], rerank: Rerank) -> list[Pair]:
        """A required text parameter whose best values score within `value_lm_margin` of each
        other: the language model's log-probability of each of its best few, as the parameter's
        value in the call, is added to their scores (`value_lm_weight`). On development data it
        told "lit" from "Urban Dictionary" and a quoted address from the clause naming it; on
        numbers it did worse than the features, so they are left alone."""
        bonus: dict[tuple[str, Any], float] = {}
        for p in (p for p in params if p.required and p.kind == "string"):
            top = close_values(pairs, p.name, self.cal.value_lm_margin)
            for value, lm in zip(top, rerank(p.name, top) if top else [], strict=True):
                bonus[p.name, value] = self.cal.value_lm_weight * lm
        return [replace(x, score=x.score + bonus.get((x.param.name, x.value), 0.0)) for x in pairs]

    def _threshold(self, p: Param) -> float:
        """The score of leaving an optional parameter out, fitted per kind of parameter."""
        return self.cal.value_weights.get(f"absent:{group(p)}", self.cal.optional_threshold)

    def _pairs(self, params: list[Param], spans: list[Span], index: TextIndex) -> list[Pair]:
        """Scored pairs; only each parameter's best few (cheap features) reach the encoder."""
        orders = _order_matches(params, spans)
        wrappers = wrapping(spans)
        pairs = []
        for p in params:
            typed = [(s, v) for s in spans if (v := convert(p, s)) is not None and not names_param(p, s)]
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
        scored = [(p, s, v, self._scored(p, s, index, sims[row[p.name]][col[compared[s]]], orders, wrappers))
                  for p, s, v in pairs]  # fmt: skip
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

    def _enum(self, p: Param, index: TextIndex, spans: list[Span]) -> Any:
        """A value the text names; else the one closest in meaning to a short phrase of it."""
        options = list(p.schema["enum"])
        if {"true", "false"} <= {str(o).lower() for o in options}:
            return _flag_option(p, options, index)
        named = named_option(options, index.text)
        if named is not MISSING:
            return named
        phrases = [s.text for s in spans if s.kind in SHORT and len(s.text.split()) <= 3][:80]
        if phrases:
            labels = [str(o).replace("_", " ").lower() for o in options]
            best = [max(row) for row in self.similarity(labels, phrases)]
            top = max(range(len(options)), key=lambda i: best[i])
            if p.required or best[top] >= ENUM_SIMILARITY:
                return options[top]
        return _enum_default(p, options)

    def _object(self, p: Param, text: str, decode: Decode | None) -> Any:
        """A nested object is filled like a tool's parameters; an optional one only when the
        text gave it more than its bare minimum."""
        value = self.fill(p.schema, text, decode)
        if not p.required and value == repair({}, params_of(p.schema), p.schema, None):
            return MISSING
        return value

    def _structured(self, p: Param, lists: list[Span], args: dict[str, Any], decode: Decode | None) -> Any:
        """A written list (each used once, reading order), else the grammar decoder."""
        for span in lists:
            if is_valid(span.value, p.schema):
                lists.remove(span)  # one written list fills one parameter
                return span.value
        if not p.required:
            return MISSING
        if decode is not None:
            try:
                return decode(p.schema, p.name, dict(args))
            except ValueError as exc:  # the model did not finish a valid value in budget
                log.debug("decoding %s failed: %s", p.name, exc)
        return minimal_instance(p.schema)


ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
SCALARS = ("string", "integer", "number")
UNIT = re.compile(r"\s*-?((?:[^\W\d_][\w/^°%-]*\s*){1,2})")
NUMBERS = ("number", "percent", "wordnum")


def compared_text(span: Span, text: str) -> str:
    """What the encoder compares with a parameter: a number with the unit written after it
    ("100 kilograms", "5 seconds"), which tells weight from height where "100" alone cannot."""
    if span.kind not in NUMBERS:
        return span.text
    unit = UNIT.match(text, span.end)
    return f"{span.text} {unit.group(1).strip()}" if unit else span.text


JOINT_OPTIONS = 4
JOINT_LIMIT = 4096  # assignments searched at most (3,125 took 2 ms); above, best pair first
UNFILLED = 100.0  # a required parameter left empty is repaired with a made-up value

SHORTLIST = 8  # values per parameter scored with the encoder (8 against 4: dev formal +1.3 points, chat -0.2)
SHORT = ("phrase", "name", "quoted", "ident")
ENUM_SIMILARITY = 0.7  # an optional enum is set from a paraphrase only when this close
MISSING = object()


def _put(args: dict[str, Any], p: Param, value: Any) -> None:
    if value is not MISSING:
        args[p.name] = value


def convert(p: Param, span: Span) -> Any:
    """The span's value in the parameter's type, or None when it cannot be one."""
    value = span.value
    if span.kind == "currency" and "currency" not in p.name_words | p.desc_words:
        return None
    if span.kind == "place" and not wants_region(p):
        return None
    if p.kind == "string":
        value = span.text if isinstance(value, int | float) else value
        if not isinstance(value, str):
            return None
        if span.kind == "date" and ISO_DAY.match(value) and (fmt := asked_format(p.description)):
            value = in_format(value, fmt) or value
        if span.kind != "quoted":  # a quoted value is exactly what the user means
            value = unlabelled(p, value)
    elif p.kind == "integer":
        if not isinstance(value, int | float) or not float(value).is_integer():
            return None
        value = int(value)
    elif p.kind == "number" and not isinstance(value, int | float):
        return None
    plain = set(p.schema) <= {"type", "description", "title", "default", "examples"}
    return value if plain or is_valid(value, p.schema) else None


LABEL = re.compile(r"(\w+)[\s:#]+(?=\S*\d)(\S+)$")  # a word, then a token with a digit: "ID SK123"


def unlabelled(p: Param, value: str) -> str:
    """An identifier without the word that labels it: "ID SK123" → "SK123" for a product_id,
    when the parameter's name or description holds the label."""
    m = LABEL.match(value)
    if m and stem(m.group(1)) in p.name_words | p.desc_words:
        return m.group(2)
    return value


def wants_region(p: Param) -> bool:
    """A parameter written "City, State" or "City, Country": its description says so or quotes
    an example ('Berkeley, CA', 'Paris, France')."""
    words = p.name_words | p.desc_words
    shapes = example_shapes(p.description)
    said = "city" in words and bool(words & {"state", "country"})
    return said or bool(shapes & {"Aa, A", "Aa, Aa"})


def _order_matches(params: list[Param], spans: list[Span]) -> set[tuple[str, int]]:
    """Numeric parameters and numbers both in reading order: the k-th usually gets the k-th."""
    numeric = [p.name for p in params if p.kind in ("integer", "number")]
    starts = sorted({s.start for s in spans if s.kind == "number"})
    return set(zip(numeric, starts, strict=False))


SPECIFIC = ("number", "percent", "date", "quoted", "name", "ident", "currency")


def wrapping(spans: list[Span]) -> set[Span]:
    """Longer spans (phrases, clauses) that hold a specific value inside them: "It's 10.0.0.7, and
    it keeps showing up" holds the address, which is the value, not the sentence around it."""
    inner = [s for s in spans if s.kind in SPECIFIC]
    return {
        s for s in spans if s.kind not in SPECIFIC
        and any(s.start <= i.start and i.end <= s.end and (i.start, i.end) != (s.start, s.end) for i in inner)
    }  # fmt: skip


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


def _overlap(a: Span, b: Span) -> bool:
    return a.start < b.end and b.start < a.end


def named_option(options: list[Any], text: str) -> Any:
    """The longest enum value whose words all appear in the text."""
    lowered = text.lower()
    for option in sorted(options, key=lambda o: -len(str(o))):
        words = [w.lower() for w in str(option).replace("_", " ").split()]
        if words and all(re.search(rf"\b{re.escape(w)}\b", lowered) for w in words):
            return option
    return MISSING


def _flag_option(p: Param, options: list[Any], index: TextIndex) -> Any:
    """A flag written as an enum ("True", "False", "dontcare"): set as a boolean would be, from
    the flag's words in the text ("with laundry service" → has_laundry_service "True")."""
    words = sorted(p.name_words)
    if mentioned(index, words) and not indifferent(index, words):
        said = str(not negated(index, p.name_words)).lower()
        return next(o for o in options if str(o).lower() == said)
    return _enum_default(p, options)


def _enum_default(p: Param, options: list[Any]) -> Any:
    if not p.required:
        return MISSING
    default = p.schema.get("default")
    return default if default in options else options[0]


def choose_bool(p: Param, index: TextIndex) -> Any:
    words = sorted(p.name_words)
    hit = mentioned(index, words) and not indifferent(index, words)
    default = p.schema.get("default")
    if not hit:
        return default if p.required and isinstance(default, bool) else (
            False if p.required else MISSING
        )  # fmt: skip
    return not negated(index, p.name_words)  # said, so sent, even when it is the default


def repair(
    args: dict[str, Any], params: list[Param], parameters: dict[str, Any], decode: Decode | None
) -> dict[str, Any]:
    """Last line of defence: every value valid on its own, every required one present."""
    fixed: dict[str, Any] = {}
    for p in params:
        if p.name in args and is_valid(args[p.name], p.schema):
            fixed[p.name] = args[p.name]
        elif p.required:
            fixed[p.name] = _fallback(p, fixed, decode)
    if is_valid(fixed, parameters):
        return fixed
    fallback = minimal_instance(parameters)
    return fallback if isinstance(fallback, dict) else {}


def _fallback(p: Param, filled: dict[str, Any], decode: Decode | None) -> Any:
    """The simplest valid value; the grammar decoder when only it can meet a pattern or format."""
    value = minimal_instance(p.schema)
    if is_valid(value, p.schema) or decode is None:
        return value
    try:
        return decode(p.schema, p.name, dict(filled))
    except ValueError as exc:
        log.debug("decoding %s failed: %s", p.name, exc)
        return value
