"""Extract candidate argument values from conversation text: numbers, dates, quotes, names, phrases."""

from __future__ import annotations

import re
from datetime import date

from shadowswitch.engines.local.knowledge import Currencies, Knowledge
from shadowswitch.engines.local.languages import Span, in_text
from shadowswitch.engines.local.languages.en.dates import date_spans
from shadowswitch.engines.local.languages.en.numbers import word_number_spans
from shadowswitch.engines.local.languages.en.words import STOPWORDS

__all__ = ["Span", "extract", "identifiers", "names", "numbers", "phrases", "quoted"]

# A word character of a script that writes spaces between words: Chinese, Japanese and Korean
# characters are left out, so that "最多10个" holds the number 10 and "Ed Sheeran的" the name. In
# text without them every pattern below reads as it would with \w.
W = r"[^\W\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]"

SCALES = {
    "k": 1e3,
    "thousand": 1e3,
    "m": 1e6,
    "mn": 1e6,
    "mil": 1e6,
    "million": 1e6,
    "b": 1e9,
    "bn": 1e9,
    "billion": 1e9,
    "t": 1e12,
    "trillion": 1e12,
}
NUMBER_RE = re.compile(
    rf"(?<![.\-^/])(?<!{W})"
    r"(?P<sign>-)?[$€£¥]?(?P<num>\d{1,3}(?:,\d{3})+|\d+)(?P<frac>\.\d+)?"
    r"(?:(?P<pct>\s?%|\s(?:percent|per cent)\b)"
    rf"|(?P<suf>[kKmMbBtT]|mn|bn)(?!{W})|\s(?P<word>thousand|million|billion|trillion)\b)?"
    rf"(?:st|nd|rd|th)?(?!{W}|\.\d)"  # not a part of 172.16.254.1 or 2.10.3
)
# A number written against its unit ("6cm", "5km/h", "3x"): the number is the value.
UNIT_NUMBER_RE = re.compile(
    rf"(?<![.\-^/])(?<!{W})"
    rf"(?P<sign>-)?(?P<num>\d+(?:\.\d+)?)(?P<unit>[A-Za-z]{{1,5}})(?!{W})"
)
NOT_UNITS = frozenset(("st", "nd", "rd", "th", "k", "m", "b", "t", "mn", "bn", "am", "pm", "s", "d"))
QUOTE_RE = re.compile(
    rf"(?<!{W})'([^'\n]{{1,200}})'(?!{W})|"
    r"\"([^\"\n]{1,200})\"|`([^`\n]{1,200})`"
    r"|“([^”\n]{1,200})”|‘([^’\n]{1,200})’"
)
_I = rf"(?:{W}|[@/.:+~-])"  # a character of an identifier
IDENT_RE = re.compile(rf"(?<![@/.:-])(?<!{W}){_I}*(?:{W}|[@/.:~-]){_I}*")
WORD_RE = re.compile(rf"(?<![$])(?<!{W})(?:[A-Za-z](?:{W}|['&.-])*{W}|[A-Za-z])")


def extract(text: str, knowledge: Knowledge | None = None, today: date | None = None) -> list[Span]:
    """Every candidate value in `text`, possibly overlapping; callers pick one per parameter.

    `knowledge`: the optional tables the engine loaded at start-up (places, currencies); without
    it, only the currency table, which needs no loading. `today`: the day relative days ("tomorrow",
    明天) are read from, the clock's by default."""
    known = knowledge if knowledge is not None else Knowledge(currencies=Currencies())
    found_dates = dates(text, today, relative=False)
    words = [s for s in names(text) + identifiers(text) + phrases(text) if not _inside(s, found_dates)]
    spans = numbers(text) + found_dates + quoted(text) + currencies(text, known) + words
    spans += places(text, words, known)
    # relative days ("next Monday") are offered beside the words as written, hiding none of them
    spans += [s for s in dates(text, today) if s not in found_dates]
    for reader in in_text(text):  # each other language the text is written in adds its values
        more = reader.spans(text, known.region_of, today)
        written = [s for s in more if s.kind == "date"]  # 7 and 30 of 2027年7月30日 are no values
        spans = [s for s in spans if not _inside(s, written)] + more
    return _dedupe(spans + clauses(text))


def _inside(span: Span, outer: list[Span]) -> bool:
    """Part of a longer span ("April" of "April 11th, 2023"): the longer one is the value."""
    return any(
        o.start <= span.start and span.end <= o.end and o.end - o.start > span.end - span.start for o in outer
    )


def numbers(text: str) -> list[Span]:
    out: list[Span] = []
    for m in NUMBER_RE.finditer(text):
        raw = float(m["num"].replace(",", "") + (m["frac"] or ""))
        raw = -raw if m["sign"] else raw
        scale = SCALES.get((m["suf"] or m["word"] or "").lower(), 1.0)
        if m["suf"] and not _money_or_thousands(m):
            scale = 1.0  # "221B Baker Street", "5m": a house number, metres — not a scale
        value = _num(raw * scale)
        out.append(Span(m.group(0), value, "number", m.start(), m.end()))
        if m["pct"]:
            out.append(Span(m.group(0), _num(raw / 100), "percent", m.start(), m.end()))
    for m in UNIT_NUMBER_RE.finditer(text):
        if m["unit"].lower() not in NOT_UNITS:
            value = _num(float(m["num"]) * (-1 if m["sign"] else 1))
            out.append(Span(m.group(0), value, "number", m.start(), m.end()))
    for surface, value, start, end in word_number_spans(text):
        out.append(Span(surface, value, "wordnum", start, end))
    return out


def _money_or_thousands(m: re.Match[str]) -> bool:
    """A letter scale counts after a currency sign, or as `k` ("5k"), or on a decimal ("2.5M");
    but a small `m` on a decimal is metres ("1.75m tall"), unless after a currency sign."""
    money = m.group(0)[:1] in "$€£¥"
    return money or m["suf"] in ("k", "K") or (bool(m["frac"]) and m["suf"] != "m")


def _num(value: float) -> int | float:
    return int(value) if float(value).is_integer() and abs(value) < 1e15 else round(value, 10)


def dates(text: str, today: date | None = None, relative: bool = True) -> list[Span]:
    return [Span(surface, value, "date", s, e) for surface, value, s, e in date_spans(text, today, relative)]


def quoted(text: str) -> list[Span]:
    out = []
    for m in QUOTE_RE.finditer(text):
        group = next(i for i in range(1, 6) if m.group(i) is not None)
        inner = m.group(group).strip()
        if inner:
            out.append(Span(inner, inner, "quoted", m.start(group), m.end(group)))
    return out


def names(text: str) -> list[Span]:
    """Runs of capitalised words (`New York`, `Katy Perry`), also comma-joined places and
    addresses (`Portland, OR`, `221B Baker Street, Berkeley, CA`)."""
    words = list(WORD_RE.finditer(text))
    runs: list[tuple[int, int]] = []
    for i, word in enumerate(words):
        if not _capitalised(words, i, text):
            continue
        joined = i > 0 and text[words[i - 1].end() : word.start()] == " "
        if runs and joined and runs[-1][1] == words[i - 1].end():
            runs[-1] = (runs[-1][0], word.end())
        else:
            runs.append((word.start(), word.end()))
    # A lone capitalised word opening a sentence is its first word ("Provide me…"), not a name;
    # a unit in capitals after a number is the number's ("100 GB"), not a name either.
    runs = [(s, e) for s, e in runs if " " in text[s:e] or not _opens_sentence(text, s)]
    runs = [(s, e) for s, e in runs if not _unit(text, s, e)]
    # A possessive before a noun names its owner: "Madonna's music" → Madonna.
    runs = [(s, e - 2) if _possessive(text, e) else (s, e) for s, e in runs]
    out = [Span(text[s:e], text[s:e], "name", s, e) for s, e in runs]
    for s, e in runs:  # without a label in capitals ("ID U123456") or a sentence's first word
        cut = text.find(" ", s, e)  # ("Play Katy Perry")
        if cut > 0 and ((text[s:cut].isupper() and cut - s > 1) or _opens_sentence(text, s)):
            out.append(Span(text[cut + 1 : e], text[cut + 1 : e], "name", cut + 1, e))
    for i, (start, end) in enumerate(runs):
        house = HOUSE_NUMBER_RE.search(text, 0, start)  # "221B Baker Street"
        for s in [start] + ([house.start()] if house else []):
            ends = [end] if s != start else []
            for j in range(i + 1, min(i + 4, len(runs))):
                if text[runs[j - 1][1] : runs[j][0]] not in (", ", ","):
                    break
                ends.append(runs[j][1])
            out += [Span(text[s:e], text[s:e], "name", s, e) for e in ends]
    return out


def _unit(text: str, start: int, end: int) -> bool:
    """Capitals of three letters at most right after a number: its unit ("100 GB", "3 KG")."""
    word = text[start:end]
    return len(word) <= 3 and word.isupper() and re.search(r"\d ?$", text[:start]) is not None


HOUSE_NUMBER_RE = re.compile(r"(?<![\w.,$])\d{1,5}[A-Za-z]? $")


def _possessive(text: str, end: int) -> bool:
    return text[end - 2 : end] in ("'s", "’s") and bool(re.match(r" [a-z]", text[end : end + 2]))


SENTENCE_END = ".!?:\n"


def _opens_sentence(text: str, start: int, breaks: str = SENTENCE_END) -> bool:
    before = text[:start].rstrip().rstrip(OPENING).rstrip()  # '"Can you…' opens one too
    return not before or before[-1] in breaks


OPENING = "\"'“‘(["


def _capitalised(words: list[re.Match[str]], j: int, text: str) -> bool:
    word = words[j].group(0)
    if not word[0].isupper() or word.lower() in ("i", "i'm", "i'd", "i've"):
        return False
    if len(word) == 2 and word.isupper() and text[: words[j].start()].endswith(", "):
        return True  # a region code: "Portland, OR"
    after_break = _opens_sentence(text, words[j].start(), SENTENCE_END + ",")  # "Riga, Latvia, Can you…"
    return not (after_break and word.lower() in STOPWORDS)


def identifiers(text: str) -> list[Span]:
    """Tokens a person would not say aloud: ids, paths, emails, URLs, versions."""
    out = []
    for m in IDENT_RE.finditer(text):
        token = m.group(0).rstrip(".:,;-")
        if _looks_like_identifier(token):
            out.append(Span(token, token, "ident", m.start(), m.start() + len(token)))
    return out


def _looks_like_identifier(token: str) -> bool:
    if re.fullmatch(r"\d+(?:\.\d+){2,}", token):
        return True  # an IP address or a version ("172.16.254.1", "1.2.3"), not a number
    if len(token) < 2 or re.fullmatch(r"[\d,.]+(?:st|nd|rd|th|[kKmMbBT]|mn|bn|am|pm|%)?", token):
        return False
    has_mark = bool(re.search(r"[_/@:.\d]", token)) or re.search(r"[a-z][A-Z]", token)
    return bool(has_mark) and bool(re.search(r"[A-Za-z\d]", token))


MAX_PHRASES = 400


def phrases(text: str) -> list[Span]:
    """Word n-grams (1–4) of content words: the noun phrases most string parameters want."""
    words = [m for m in WORD_RE.finditer(text)]
    out = []
    for i, first in enumerate(words):
        for n in range(1, 5):
            if i + n > len(words):
                break
            last = words[i + n - 1]
            chunk = text[first.start() : last.end()]
            if re.search(r"[.!?;:,\n()\d]", chunk) or in_text(chunk):
                break
            if first.group(0).lower() in STOPWORDS or last.group(0).lower() in STOPWORDS:
                continue
            out.append(Span(chunk, chunk, "phrase", first.start(), last.end()))
        if len(out) >= MAX_PHRASES:  # long documents: the first phrases are enough candidates
            break
    return out


def clauses(text: str) -> list[Span]:
    """The whole turn and its sentences: for parameters that take a message or a query."""
    out = [Span(text.strip(), text.strip(), "text", 0, len(text))] if text.strip() else []
    for m in re.finditer(r"(?:[^.!?\n]|[.!?](?=\S))+[.!?]?", text):  # "3.5" ends no sentence
        chunk = m.group(0).strip()
        if 0 < len(chunk) < len(text.strip()) and len(chunk.split()) >= 3:
            start = text.index(chunk, m.start())
            out.append(Span(chunk, chunk, "clause", start, start + len(chunk)))
    return out


def currencies(text: str, knowledge: Knowledge) -> list[Span]:
    """Currencies named in the text, each offering its ISO code ("euros" → EUR), and codes
    written as such (knowledge.currencies). One span fills one parameter."""
    return [Span(m.text, m.code, "currency", m.start, m.end) for m in knowledge.currencies_in(text)]


REGION_AFTER = re.compile(r"\s*,\s*((?:[A-Z]\.)+|[A-Z]\w*(?: [A-Z]\w*)*)")  # ", Tamil Nadu", ", D.C."


def places(text: str, words: list[Span], knowledge: Knowledge) -> list[Span]:
    """A city the text names, offered with its state or country ("Los Angeles, CA"): the one the
    text gives ("Chennai, Tamil Nadu"), else the one it is known by (knowledge.places)."""
    out = []
    for s in words:
        if s.kind != "name" or (known := knowledge.region_of(s.text)) is None:
            continue
        given = REGION_AFTER.match(text, s.end)
        out.append(Span(s.text, f"{s.text}, {given[1]}" if given else known, "place", s.start, s.end))
    return out


def _dedupe(spans: list[Span]) -> list[Span]:
    """One span per (position, value); the first extractor to find it names its kind."""
    seen: set[tuple[int, int, str]] = set()
    out = []
    for span in spans:
        key = (span.start, span.end, repr(span.value))
        if key not in seen:
            seen.add(key)
            out.append(span)
    return out
