"""Score (parameter, value) pairs with simple features and weights fitted on development data.

The feature list the weights are keyed by (`DEFAULT_WEIGHTS`, or a calibration's): a feature and
its weight are defined together.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from shadowswitch.engines.local.arguments.params import Param, stem
from shadowswitch.engines.local.choice.candidates import humanise
from shadowswitch.engines.local.languages import Span, in_text
from shadowswitch.engines.local.languages.en.words import NEGATIONS

WORDS = re.compile(r"[A-Za-z0-9]+")
NUMERIC = ("integer", "number")
INDIFFERENT = re.compile(
    r"\b(?:don'?t|do not|doesn'?t|not)\s+(?:really\s+|too\s+|very\s+)?(?:care|mind|matter|concerned)"
    r"|\bno preference\b|\bwhether or not\b|\bor not\b|\bregardless\b|\beither way\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class TextIndex:
    """Word positions of the conversation text, to measure how near a keyword is to a value."""

    text: str
    starts: tuple[int, ...]
    stems: tuple[str, ...]

    @classmethod
    def of(cls, text: str) -> TextIndex:
        tokens = [(m.start(), stem(m.group(0))) for m in WORDS.finditer(text)]
        for reader in in_text(text):  # words the Latin pattern does not find (乘客 → passenger)
            tokens = sorted(tokens + reader.tokens(text))
        return cls(text, tuple(s for s, _ in tokens), tuple(w for _, w in tokens))

    def word_range(self, span: Span) -> tuple[int, int]:
        first = next((i for i, s in enumerate(self.starts) if s >= span.start), len(self.starts))
        last = next((i for i, s in enumerate(self.starts) if s >= span.end), len(self.starts))
        return first, max(last, first + 1)

    def nearness(self, words: frozenset[str], span: Span) -> tuple[float, float]:
        """(before, after): 1/distance to the closest keyword on each side of the span."""
        lo, hi = self.word_range(span)
        before = max((1 / (lo - i) for i in range(lo) if self.stems[i] in words), default=0.0)
        after = max(
            (1 / (i - hi + 1) for i in range(hi, len(self.stems)) if self.stems[i] in words),
            default=0.0,
        )
        return before, after


def cue_before(text: str, at: int) -> frozenset[str]:
    """The English words of the label written right before `at` in another language (乘客王芳,
    UUID是AB10: languages.zh.labels)."""
    return frozenset(w for reader in in_text(text) for w in reader.labels_before(text, at))


DATE_WORDS = frozenset(("date", "day", "time", "when", "datetime", "timestamp", "deadline", "until", "since"))


GROUPS = ("num", "str", "date")  # what `group` returns


def group(param: Param) -> str:
    """Which kind weights apply: numbers, dates and times, or other text."""
    if param.kind in NUMERIC:
        return "num"
    return "date" if (param.name_words | param.desc_words) & DATE_WORDS else "str"


def features(
    param: Param, span: Span, index: TextIndex, similarity: float, order_match: bool, wraps: bool = False
) -> dict[str, float]:
    """`wraps`: the span holds a more specific value (arguments.wrapping)."""
    name_before, name_after = index.nearness(param.name_words, span)
    desc_before, desc_after = index.nearness(param.desc_words - param.name_words, span)
    desc = str(param.schema.get("description") or "").lower()
    n_words = len(WORDS.findall(span.text))
    return {
        f"kind:{group(param)}:{span.kind}": 1.0,
        "name_before": name_before,
        "name_after": name_after,
        "desc_before": desc_before,
        "desc_after": desc_after,
        "similarity": similarity,
        f"words:{group(param)}": math.log1p(n_words),
        "order": float(order_match),
        "in_description": float(len(span.text) > 1 and span.text.lower() in desc),
        "long_text_param": float(n_words > 4 and _wants_text(param)),
        "direction": direction(param, span, index),
        "iso_date": float(span.kind == "date" and span.value != span.text and group(param) != "num"),
        "year": year(param, span),
        "bound": bound(param, span, index.text),
        "labelled": labelled(param, span, index.text),
        "shape": shape_match(param, span),
        "wraps_value": float(wraps and not _wants_text(param)),
    }


def shape(text: str) -> str:
    """How a value is written, without what it says: "San Diego, CA" and "Seattle, WA" are both
    "Aa, A"; "2023-03-02" is "9-9-9". Capitalised words in a row count as one."""
    out = SHAPE_RUN.sub(lambda m: SHAPE_OF[m.lastgroup or ""], text)
    return re.sub(r"W(?: W)*", "Aa", out)


SHAPE_RUN = re.compile(r"(?P<W>[A-Z][a-z]+)|(?P<U>[A-Z]+)|(?P<L>[a-z]+)|(?P<D>\d+)")
SHAPE_OF = {"W": "W", "U": "A", "L": "a", "D": "9"}  # a capitalised word, capitals, lower, digits


QUOTED_EXAMPLE = re.compile(r"'([^']{1,40})'|\"([^\"]{1,40})\"")
DATE_PATTERN = re.compile(r"\b[YMDHhmsS]+(?:[-/.: T][YMDHhmsS]+)+\b")  # YYYY-MM-DD, HH:MM


@functools.lru_cache(maxsize=1024)
def example_shapes(description: str) -> frozenset[str]:
    """The shapes of the examples a description quotes ('New York, NY') and of the date formats
    it names (YYYY-MM-DD)."""
    # A date format, quoted or not ("first day, YYYY-MM-DD"), stands for digits.
    formats = [m.group(0) for m in DATE_PATTERN.finditer(description)]
    quoted = [m.group(1) or m.group(2) for m in QUOTED_EXAMPLE.finditer(description)]
    return frozenset(shape(DATE_PATTERN.sub(_digits, example)) for example in quoted + formats)


def _digits(m: re.Match[str]) -> str:
    return re.sub(r"[YMDHhmsS]+", "9", m.group(0))


def shape_match(param: Param, span: Span) -> float:
    """1.0 when the value is written like an example the description quotes: 'City, State' such
    as 'New York, NY' wants "San Diego, CA" rather than "San Diego"."""
    if param.kind != "string":
        return 0.0
    value = span.value if isinstance(span.value, str) else span.text
    return float(shape(value) in example_shapes(param.description))


def names_param(param: Param, span: Span) -> bool:
    """Text that only repeats the parameter's own name: "IP" is not an ip_address's value, nor
    "ID" a customer_id's. A rule, not a feature: fitted as a weight, it lost to the name's
    nearness, which such a span always has."""
    if isinstance(span.value, int | float | bool):
        return False
    words = WORDS.findall(span.text)
    return bool(words) and all(stem(w) in param.name_words for w in words)


def labelled(param: Param, span: Span, text: str) -> float:
    """1.0 when the text names the parameter right at the value: "a=1", "rate: 5%", "base of
    10", "-10 for c". Nearness (name_before) cannot see one-letter names such as a, b, x."""
    if cue_before(text, span.start) & param.name_words:
        return 1.0  # 乘客王芳, 座位：12A — Chinese writes the label right against the value
    patterns = _label_patterns(param.name)
    if patterns is None:
        return 0.0
    last_word, named_before, named_after = patterns
    before = text[max(0, span.start - 60) : span.start]
    after = text[span.end : span.end + 60]
    if last_word not in before.lower() and last_word not in after.lower():
        return 0.0  # the cheap test first: this runs for every (parameter, value) pair
    return float(bool(named_before.search(before) or named_after.match(after)))


@functools.lru_cache(maxsize=1024)
def _label_patterns(name: str) -> tuple[str, re.Pattern[str], re.Pattern[str]] | None:
    """The name's last word and the two ways of writing it at a value, once per name."""
    words = humanise(name).split()
    if not words:
        return None
    joined = r"[\s_]+".join(re.escape(w) for w in words)
    quote = r"['\"`]?"
    return (
        words[-1],
        re.compile(rf"(?<![\w.]){quote}{joined}{quote}\s*(?:=|:|is|of|equals|equal to)\s*{quote}$", re.I),
        re.compile(rf"{quote}\s*(?:for|as)\s+(?:the\s+)?{quote}{joined}(?![\w])", re.I),
    )


def year(param: Param, span: Span) -> float:
    """A year parameter: +1 for a number that reads as a year (2022), -1 for one that does not."""
    if "year" not in param.name_words or not isinstance(span.value, int | float):
        return 0.0
    return 1.0 if span.kind == "number" and 1000 <= span.value <= 2999 else -1.0


LOW_WORDS = frozenset(("min", "minimum", "lower", "low", "least", "start", "begin", "from", "floor"))
HIGH_WORDS = frozenset(("max", "maximum", "upper", "high", "most", "end", "until", "ceiling"))
RANGE_NEXT = re.compile(r"\s*(?:and|to|-|–|through)\s*[$€£]?\d")
RANGE_PREV = re.compile(r"\d\s*(?:and|to|-|–|through)\s*[$€£]?$")


def bound(param: Param, span: Span, text: str) -> float:
    """ "between 25 and 35": +1 when the low end meets a minimum or the high end a maximum
    parameter, -1 when crossed."""
    low, high = bool(param.name_words & LOW_WORDS), bool(param.name_words & HIGH_WORDS)
    if low == high or span.kind != "number":
        return 0.0
    said_low = bool(RANGE_NEXT.match(text, span.end))
    said_high = bool(RANGE_PREV.search(text[max(0, span.start - 12) : span.start]))
    if said_low == said_high:
        return 0.0
    return 1.0 if said_low == low else -1.0


DIGITS = frozenset("0123456789")


def direction(param: Param, span: Span, index: TextIndex) -> float:
    """+1 when "from X" meets a source parameter or "to X" a target one, -1 when crossed."""
    if param.role is None:
        return 0.0
    lo, _ = index.word_range(span)
    before = index.stems[lo - 1] if lo > 0 else ""
    said = "source" if before == "from" else "target" if before in ("to", "into") else None
    for reader in in_text(index.text):  # other languages write the word right against the value
        said = said or reader.role_before(index.text, span.start, span.kind == "currency")
    if span.kind == "currency" and said is None and index.text[: span.start].rstrip()[-1:] in DIGITS:
        said = "source"  # "5000USD" (written against its amount)
    if span.kind == "currency" and said is None:  # "5000 US dollars … how much in yen"
        said = "source" if before.isdigit() else "target" if before == "in" else None
    return 0.0 if said is None else (1.0 if said == param.role else -1.0)


def _wants_text(param: Param) -> bool:
    hints = {"message", "query", "text", "content", "question", "prompt", "body", "comment"}
    return bool(param.name_words & hints)


DEFAULT_WEIGHTS: dict[str, float] = {
    "name_before": 2.0,
    "name_after": 1.0,
    "desc_before": 1.0,
    "desc_after": 0.5,
    "similarity": 2.0,
    "order": 1.0,
    "in_description": 0.5,
    "long_text_param": 2.0,
    "words:str": -0.5,
    "words:num": 0.0,
    "kind:str:quoted": 1.5,
    "kind:str:name": 1.0,
    "kind:str:ident": 1.0,
    "kind:str:date": 0.5,
    # A date for a date parameter, as strong a cue as quotes for text: without it a date read from
    # text no English cue word surrounds (2027年3月14日) scored below 0 and was left out.
    "kind:date:date": 1.5,
    "kind:str:phrase": 0.0,
    "kind:str:clause": -1.0,
    "kind:str:text": -1.5,
    "kind:num:number": 1.0,
    "kind:num:percent": -0.5,
    "kind:num:wordnum": 0.0,
    "bias": -2.0,
}


def linear(feats: dict[str, float], weights: dict[str, float]) -> float:
    table = weights or DEFAULT_WEIGHTS
    return table.get("bias", 0.0) + sum(table.get(k, 0.0) * v for k, v in feats.items())


def negated(index: TextIndex, words: frozenset[str]) -> bool:
    """A keyword of the parameter appears right after a negation ("without tax")."""
    for i, s in enumerate(index.stems):
        near = range(max(0, i - 3), i)
        if any(same_word(s, w) for w in words) and any(_negation(index.stems, j) for j in near):
            return True
    return False


def _negation(stems: Sequence[str], j: int) -> bool:
    """A "t" negates only as the end of "don't", "isn't": not in "t-test"."""
    return stems[j] in NEGATIONS and (stems[j] != "t" or (j > 0 and stems[j - 1].endswith("n")))


# Endings that make another form of the same word: "detailed" is about "detail", "standardization"
# about "standardize". A bare shared prefix would be too loose ("port" is not "portrait").
FORMS = ("s", "d", "ed", "ing", "ly", "ion", "ation", "al", "ally", "ity", "ness", "ment")


def same_word(a: str, b: str) -> bool:
    """Two stems are one word in another form: equal, or the longer is the shorter (a final "e"
    dropped) plus one of `FORMS`."""
    short, long = sorted((a, b), key=len)
    if short == long:
        return True
    roots = (short, short[:-1]) if short.endswith("e") else (short,)
    return len(short) >= 4 and any(long.startswith(r) and long[len(r) :] in FORMS for r in roots)


# Words that only make a flag's name a verb or a noun: include_hidden is about "hidden".
FLAG_WORDS = frozenset(
    {
        "include",
        "is",
        "has",
        "allow",
        "allowed",
        "enable",
        "enabled",
        "show",
        "apply",
        "only",
        "use",
        "visibility",
        "flag",
        "mode",
        "option",
    }
)


def mentioned(index: TextIndex, words: Sequence[str]) -> bool:
    """Every telling keyword of a flag is in the text ("tax" alone does not mention tax_exempt)."""
    telling = [w for w in words if w not in FLAG_WORDS] or list(words)
    return bool(telling) and all(any(same_word(w, s) for s in index.stems) for w in telling)


def indifferent(index: TextIndex, words: Sequence[str]) -> bool:
    """The user says the feature does not matter ("I don't care about a garage")."""
    for m in INDIFFERENT.finditer(index.text):
        after = index.text[m.start() : m.end() + 80].lower()
        if any(re.search(rf"\b{re.escape(w)}", after) for w in words):
            return True
    return False
