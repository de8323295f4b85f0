"""Enum options and flags named in another language: through the language's glossary (华氏 →
"fahrenheit", 早餐 → breakfast), else by a phrase's meaning, false after a negation (不要早餐).

Each function returns a value with its provenance, or None when the text settles nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from shadowswitch.engines.local.arguments.features import same_word
from shadowswitch.engines.local.arguments.grounding import Value, by_meaning, from_text
from shadowswitch.engines.local.arguments.params import Param
from shadowswitch.engines.local.languages import Span, in_text

Similarity = Callable[[list[str], list[str]], list[list[float]]]


def glossed_option(options: list[Any], text: str) -> Value | None:
    """The enum option a word of another language names (华氏 → "fahrenheit", 升序 → "ASC")."""
    for reader in in_text(text):
        for english, start, end in reader.glossed(text):
            for option in options:
                label = str(option).lower().replace("_", " ")
                if label == english or (len(label) >= 3 and english.startswith(label)):
                    return option, from_text(text, start, end)
    return None


def glossed_flag(p: Param, text: str) -> Value | None:
    """A flag a glossary word names: true, or false after a negation."""
    for reader in in_text(text):
        for english, start, end in reader.glossed(text):
            if any(same_word(w, word) for word in english.split() for w in p.name_words):
                return not reader.negated(text, start), from_text(text, start, end)
    return None


def foreign_flag(
    p: Param, spans: list[Span], text: str, similarity: Similarity, level: float
) -> Value | None:
    """A flag a glossary word names (早餐 for `breakfast`) or a phrase in another language means
    (cosine at least `level` with the flag's name): true, or false when a negation is right
    before it (不要早餐, 没有宠物)."""
    found = glossed_flag(p, text)
    if found is not None:
        return found
    for reader in in_text(text):
        candidates = [s for s in spans if s.kind == "phrase" and reader.writes(s.text)]
        if not candidates:
            continue
        row = similarity([p.text], [s.text for s in candidates])[0]
        best = max(range(len(candidates)), key=lambda j: row[j])
        if row[best] < level:
            return None
        span = candidates[best]
        return not reader.negated(text, span.start), by_meaning(text, span.start, span.end, row[best])
    return None
