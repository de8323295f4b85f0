"""Values in Chinese text: numbers, dates, quotes, places and phrases; glossary words and the
negations before them (不要早餐 → breakfast false).

Chinese writes no spaces, so a phrase is a run of characters between the particles, pronouns and
verbs of asking that cannot be part of a value (tables/words.json `breaks`, `verbs`), cut also
around the numbers, dates, places and quotes found in it. The scoring model then chooses among
them as among English phrases. A place is offered as written (北京); its English name (Beijing,
with its state or country where the parameter asks for that) only to a parameter whose
description writes its examples in English: the text is not translated otherwise.
"""

from __future__ import annotations

import re
from datetime import date

from shadowswitch.engines.local.languages.base import Glossed, PlaceOf, Span, table
from shadowswitch.engines.local.languages.zh.dates import zh_date_spans
from shadowswitch.engines.local.languages.zh.labels import LABEL_RE
from shadowswitch.engines.local.languages.zh.numerals import numeral_spans
from shadowswitch.engines.local.languages.zh.script import CJK_RUN, has_chinese

_WORDS = table(__package__ or __name__, "words")
NEGATIONS: tuple[str, ...] = tuple(_WORDS["negations"])  # 不要早餐, 不用加冰, 没有宠物, 无糖
BREAKS = frozenset(_WORDS["breaks"])
VERBS: tuple[str, ...] = tuple(_WORDS["verbs"])
MEASURE_WORDS = frozenset(_WORDS["measure_words"])  # 一辆车: 辆 is the count's
VERBS_INSIDE: tuple[str, ...] = tuple(_WORDS["verbs_inside"])  # 车住: cut before 住
VERBS_MAYBE: tuple[str, ...] = tuple(_WORDS["verbs_maybe"])  # 张伟发邮件: 张伟 as well
PLACES: dict[str, str] = table(__package__ or __name__, "places")["places"]
GLOSSARY: dict[str, str] = table(__package__ or __name__, "glossary")["glossary"]

QUOTE_RE = re.compile(r"「([^」\n]{1,200})」|『([^』\n]{1,200})』|《([^》\n]{1,200})》|“([^”\n]{1,200})”")
PLACE_RE = re.compile("|".join(sorted(PLACES, key=len, reverse=True)))
LATIN_EXAMPLE = re.compile(
    r"['\"‘“][A-Za-z][^'\"’”]*['\"’”]|\b(?:e\.g\.|such as|for example|like)\s+[A-Z]|English"
)
MIN_PHRASE, MAX_PHRASE = 2, 12  # characters: a lone character left between breaks is seldom a value


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
    """Runs of Chinese characters between break characters, the values found in them, the
    counting word after a number and verbs (一辆车住 offers no 车住), and the words that label a
    value: 乘客王芳 offers 王芳 as well as itself; 张伟发邮件 offers 张伟 as well as itself."""
    taken = {i for s in found for i in range(s.start, s.end) if s.kind != "quoted"}
    counted = {
        s.end for s in found if s.kind == "number" and s.end < len(text) and text[s.end] in MEASURE_WORDS
    }
    taken |= counted | _inside(text, VERBS_INSIDE)
    labels = {i for m in LABEL_RE.finditer(text) for i in range(m.start(), m.end())}
    maybe = _inside(text, VERBS_MAYBE)
    return list(dict.fromkeys(_cut(text, taken) + _cut(text, taken | labels) + _cut(text, taken | maybe)))


def _inside(text: str, verbs: tuple[str, ...]) -> set[int]:
    """The positions of `verbs` written after the first character of a run of characters."""
    out: set[int] = set()
    for run in CJK_RUN.finditer(text):
        for verb in verbs:
            at = text.find(verb, run.start() + 1, run.end())
            while at >= 0:
                out.update(range(at, at + len(verb)))
                at = text.find(verb, at + 1, run.end())
    return out


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


def offered(description: str, span: Span) -> bool:
    """A Chinese place's English name only to a parameter that asks for English, and to such a
    parameter not the name as written."""
    if span.kind not in ("name", "place") or not has_chinese(span.text):
        return True
    example = LATIN_EXAMPLE.search(description)
    if has_chinese(str(span.value)):
        return example is None
    # 'City, State' asked: the place with its region
    return example is not None and (span.kind == "place" or "," not in example.group(0))


def wants_english(description: str) -> bool:
    """A parameter's description writes its examples in English ("such as 'New York, NY'")."""
    return LATIN_EXAMPLE.search(description) is not None


GLOSS_RE = re.compile("|".join(sorted(GLOSSARY, key=len, reverse=True)))


def glossed(text: str) -> list[Glossed]:
    """(English word, start, end) of each glossary word in `text`, longest first."""
    return [(GLOSSARY[m.group(0)], m.start(), m.end()) for m in GLOSS_RE.finditer(text)]


def negated(text: str, start: int) -> bool:
    """A negation ends right before `start`, or one character before it (不要早餐, 不要加冰)."""
    before = text[max(0, start - 4) : start]
    return any(before.endswith(n) or before[:-1].endswith(n) for n in NEGATIONS)
