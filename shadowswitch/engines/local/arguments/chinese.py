"""Values in Chinese text: numbers, dates, quotes, places and phrases, and flags said with a
negation (不要早餐 → breakfast false).

Chinese writes no spaces, so a phrase is a run of characters between the particles, pronouns and
verbs of asking that cannot be part of a value (knowledge/chinese.py `BREAKS`, `VERBS`), cut also
around the numbers, dates, places and quotes found in it. The scoring model then chooses among
them as among English phrases. A place is offered as written (北京); its English name (Beijing,
with its state or country where the parameter asks for that) only to a parameter whose
description writes its examples in English: the text is not translated otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

from shadowswitch.engines.local.arguments.extract import CJK_RE, CJK_RUN, Span
from shadowswitch.engines.local.arguments.features import LABEL_RE, same_word
from shadowswitch.engines.local.arguments.grounding import Value, by_meaning, from_text
from shadowswitch.engines.local.arguments.params import Param
from shadowswitch.engines.local.arguments.zh_dates import zh_date_spans
from shadowswitch.engines.local.arguments.zh_numbers import numeral_spans
from shadowswitch.engines.local.knowledge.chinese import BREAKS, GLOSSARY, NEGATIONS, PLACES, VERBS

QUOTE_RE = re.compile(r"「([^」\n]{1,200})」|『([^』\n]{1,200})』|《([^》\n]{1,200})》|“([^”\n]{1,200})”")
PLACE_RE = re.compile("|".join(sorted(PLACES, key=len, reverse=True)))
LATIN_EXAMPLE = re.compile(
    r"['\"‘“][A-Za-z][^'\"’”]*['\"’”]|\b(?:e\.g\.|such as|for example|like)\s+[A-Z]|English"
)
MIN_PHRASE, MAX_PHRASE = 2, 12  # characters: a lone character left between breaks is seldom a value

Similarity = Callable[[list[str], list[str]], list[list[float]]]
PlaceOf = Callable[[str], str | None]  # an English city name → "City, State" (knowledge.places)


def has_chinese(text: str) -> bool:
    return CJK_RE.search(text) is not None


def chinese_spans(text: str, region_of: PlaceOf, today: date | None = None) -> list[Span]:
    """The values a text with Chinese in it offers that the English patterns do not read."""
    out = [Span(t, v, "date", s, e) for t, v, s, e in zh_date_spans(text, today)]
    for surface, value, s, e, percent in numeral_spans(text):
        # A Chinese numeral is how numbers are written, not a word for one as "two" is in English.
        out.append(Span(surface, value, "percent" if percent else "number", s, e))
    for m in QUOTE_RE.finditer(text):
        group = next(i for i in range(1, 5) if m.group(i) is not None)
        if inner := m.group(group).strip():
            out.append(Span(inner, inner, "quoted", m.start(group), m.end(group)))
    for m in PLACE_RE.finditer(text):
        english = PLACES[m.group(0)]
        out.append(Span(m.group(0), m.group(0), "name", m.start(), m.end()))
        out.append(Span(m.group(0), english, "name", m.start(), m.end()))
        if (region := region_of(english)) is not None:
            out.append(Span(m.group(0), region, "place", m.start(), m.end()))
    return out + phrases(text, out)


def phrases(text: str, found: list[Span]) -> list[Span]:
    """Runs of Chinese characters between break characters, the values found in them and the
    words that label a value: 乘客王芳 offers 王芳 as well as itself."""
    taken = {i for s in found for i in range(s.start, s.end) if s.kind != "quoted"}
    labels = {i for m in LABEL_RE.finditer(text) for i in range(m.start(), m.end())}
    return list(dict.fromkeys(_cut(text, taken) + _cut(text, taken | labels)))


def _cut(text: str, taken: set[int]) -> list[Span]:
    out = []
    for run in CJK_RUN.finditer(text):
        start = run.start()
        for i in range(run.start(), run.end() + 1):
            if i < run.end() and text[i] not in BREAKS and i not in taken:
                continue
            out += _phrase(text, start, i)
            start = i + 1
    return out


def _phrase(text: str, start: int, end: int) -> list[Span]:
    for verb in sorted(VERBS, key=len, reverse=True):  # "查询天气" → "天气"; "改成" alone → nothing
        if text.startswith(verb, start):
            start += len(verb)
            break
    if not MIN_PHRASE <= end - start <= MAX_PHRASE:
        return []
    return [Span(text[start:end], text[start:end], "phrase", start, end)]


def offered(param: Param, span: Span) -> bool:
    """A Chinese place's English name only to a parameter that asks for English, and to such a
    parameter not the name as written."""
    if span.kind not in ("name", "place") or not has_chinese(span.text):
        return True
    example = LATIN_EXAMPLE.search(param.description)
    if has_chinese(str(span.value)):
        return example is None
    # 'City, State' asked: the place with its region
    return example is not None and (span.kind == "place" or "," not in example.group(0))


def wants_english(param: Param) -> bool:
    """The parameter's description writes its examples in English ("such as 'New York, NY'")."""
    return LATIN_EXAMPLE.search(param.description) is not None


GLOSS_RE = re.compile("|".join(sorted(GLOSSARY, key=len, reverse=True)))


def glossed(text: str) -> list[tuple[str, int, int]]:
    """(English word, start, end) of each glossary word in `text`, longest first."""
    return [(GLOSSARY[m.group(0)], m.start(), m.end()) for m in GLOSS_RE.finditer(text)]


def glossed_option(options: list[Any], text: str) -> Value | None:
    """The enum option a Chinese word names (华氏 → "fahrenheit", 升序 → "ASC")."""
    for english, start, end in glossed(text):
        for option in options:
            label = str(option).lower().replace("_", " ")
            if label == english or (len(label) >= 3 and english.startswith(label)):
                return option, from_text(text, start, end)
    return None


def _negated(text: str, start: int) -> bool:
    before = text[max(0, start - 4) : start]
    return any(before.endswith(n) or before[:-1].endswith(n) for n in NEGATIONS)


def glossed_flag(p: Param, text: str) -> Value | None:
    """A flag a Chinese word of the glossary names: true, or false after a negation."""
    for english, start, end in glossed(text):
        if any(same_word(w, word) for word in english.split() for w in p.name_words):
            return not _negated(text, start), from_text(text, start, end)
    return None


def chinese_flag(
    p: Param, spans: list[Span], text: str, similarity: Similarity, level: float
) -> Value | None:
    """A flag a Chinese word names (the glossary: 早餐 for `breakfast`) or a phrase means (cosine
    at least `level` with the flag's name): true, or false when a negation is right before it
    (不要早餐, 没有宠物)."""
    found = glossed_flag(p, text)
    if found is not None:
        return found
    candidates = [s for s in spans if s.kind == "phrase" and has_chinese(s.text)]
    if not candidates:
        return None
    row = similarity([p.text], [s.text for s in candidates])[0]
    best = max(range(len(candidates)), key=lambda j: row[j])
    if row[best] < level:
        return None
    span = candidates[best]
    return not _negated(text, span.start), by_meaning(text, span.start, span.end, row[best])
