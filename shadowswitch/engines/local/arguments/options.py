"""Enums and flags: the option the text names, or one a phrase of it means; nothing otherwise.

Each function returns a value with its provenance, or None when the text settles nothing; the
filler then falls back to the schema's default for a required parameter, or abstains.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from shadowswitch.engines.local.arguments.extract import Span
from shadowswitch.engines.local.arguments.features import (
    FLAG_WORDS,
    WORDS,
    TextIndex,
    indifferent,
    mentioned,
    negated,
    same_word,
)
from shadowswitch.engines.local.arguments.glossary import glossed_flag, glossed_option
from shadowswitch.engines.local.arguments.grounding import Value, by_meaning, from_text
from shadowswitch.engines.local.arguments.params import Param
from shadowswitch.engines.local.languages.en.words import STOPWORDS, stem

Similarity = Callable[[list[str], list[str]], list[list[float]]]  # labels × phrases cosine

SHORT = ("phrase", "name", "quoted", "ident")
ENUM_SIMILARITY = 0.7  # an option is taken from a paraphrase only when this close in meaning
MAX_PHRASES = 80


def enum_value(
    p: Param, index: TextIndex, spans: list[Span], similarity: Similarity, level: float = ENUM_SIMILARITY
) -> Value | None:
    """The option the text names; else the one closest in meaning to a short phrase of it,
    when that is close enough (`level`: the encoder's cosine for "means the same")."""
    options = list(p.schema["enum"])
    if {"true", "false"} <= {str(o).lower() for o in options}:
        return flag_option(p, options, index)
    named = named_option(options, index.text)
    if named is None:
        named = glossed_option(options, index.text)
    if named is not None:
        return named
    phrases = [s for s in spans if s.kind in SHORT and len(s.text.split()) <= 3][:MAX_PHRASES]
    if not phrases:
        return None
    labels = [str(o).replace("_", " ").lower() for o in options]
    rows = similarity(labels, [s.text for s in phrases])
    rows = [
        [0.0 if _in_part(label, s.text) else sim for s, sim in zip(phrases, row, strict=True)]
        for label, row in zip(labels, rows, strict=True)
    ]
    top = max(range(len(options)), key=lambda i: max(rows[i]))
    best = max(range(len(phrases)), key=lambda j: rows[top][j])
    if rows[top][best] < level:
        return None
    phrase = phrases[best]
    return options[top], by_meaning(index.text, phrase.start, phrase.end, rows[top][best])


def _in_part(label: str, phrase: str) -> bool:
    """The phrase is a piece of the option's own words ("order" of "ordered by mistake"): it names
    part of the option, which says nothing of what the text means; a paraphrase is other words."""
    said, own = _stems(phrase), _stems(label)
    hit = {o for o in own if any(_forms(w, o) for w in said)}
    return bool(said) and all(any(_forms(w, o) for o in own) for w in said) and len(hit) < len(own)


def _forms(a: str, b: str) -> bool:
    """Two forms of one word ("order", "ordered")."""
    return min(len(a), len(b)) >= 3 and (a.startswith(b) or b.startswith(a))


def _stems(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in re.findall(r"[a-z]+", text.lower()) if w not in STOPWORDS)


def named_option(options: list[Any], text: str) -> Value | None:
    """The longest enum value whose words all appear in the text, with the stretch naming it."""
    for option in sorted(options, key=lambda o: -len(str(o))):
        words = [w.lower() for w in str(option).replace("_", " ").split()]
        found = [re.search(rf"\b{re.escape(w)}\b", text, re.IGNORECASE) for w in words]
        hits = [m for m in found if m is not None]
        if words and len(hits) == len(words):
            return option, from_text(text, min(m.start() for m in hits), max(m.end() for m in hits))
    return None


def flag_option(p: Param, options: list[Any], index: TextIndex) -> Value | None:
    """A flag written as an enum ("True", "False", "dontcare"): set as a boolean would be, from
    the flag's words in the text ("with laundry service" → has_laundry_service "True")."""
    found = flag_value(p, index)
    if found is None:
        found = glossed_flag(p, index.text)
    if found is None:
        return None
    said = str(found[0]).lower()
    return next(o for o in options if str(o).lower() == said), found[1]


def flag_value(p: Param, index: TextIndex) -> Value | None:
    """A flag the user names in any form of its words is sent, even when it equals its default;
    one they do not name, or say they do not care about, is not."""
    words = sorted(p.name_words)
    if not mentioned(index, words) or indifferent(index, words):
        return None
    start, end = mention(index, words)
    return not negated(index, p.name_words), from_text(index.text, start, end)


def mention(index: TextIndex, words: Sequence[str]) -> tuple[int, int]:
    """Where the text names a flag: from the first of its telling words to the last (each at
    its first occurrence). Call only when `mentioned` holds."""
    telling = [w for w in words if w not in FLAG_WORDS] or list(words)
    pairs = list(zip(index.starts, index.stems, strict=True))
    starts = [next(start for start, stem in pairs if same_word(w, stem)) for w in telling]
    last = max(starts)
    found = WORDS.match(index.text, last)
    return min(starts), found.end() if found else last
