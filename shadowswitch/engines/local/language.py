"""Which encoder reads a request: by the scripts its words are written in, per request.

Per request rather than per task type: a decision needs no state, a task type whose users write
in two languages gets each request read by the encoder that knows its language, and an English
request is read exactly as before `auto` existed (the English encoder and its prior).

A word counts once; a Han or kana character counts as a word (Chinese and Japanese write no
spaces, and a character carries about a word's meaning). Latin-script text is English unless it
is several words, hardly any of them an English function word, and it has letters English does
not write ("Peux-tu me donner la météo"; terse English such as "Patient file: 30 years" has no
function words either). Letters in a script neither encoder was trained on (Cherokee, Tifinagh, Ol Chiki, ...)
cannot be read at all: a request mostly in them is abstained on, never guessed.
"""

from __future__ import annotations

import re
from functools import cache

import regex

from shadowswitch.engines.local.languages.en.words import STOPWORDS

MULTILINGUAL_SHARE = 0.35  # of a request's words outside the Latin script: the multilingual encoder
UNREADABLE_SHARE = 0.5  # of its words in scripts no encoder knows: abstain
MIN_LATIN_WORDS = 4  # a Latin-script request this long with no English function word is not English
ENGLISH_SHARE = 0.15

# Scripts multilingual-e5's XLM-R vocabulary covers: Unicode's name (as `\p{Script_Extensions=…}`
# writes it) → the name this module gives it.
SCRIPTS = {
    "Latin": "LATIN",
    "Han": "CJK",
    "Hiragana": "HIRAGANA",
    "Katakana": "KATAKANA",
    "Hangul": "HANGUL",
    "Cyrillic": "CYRILLIC",
    "Greek": "GREEK",
    "Arabic": "ARABIC",
    "Hebrew": "HEBREW",
    "Devanagari": "DEVANAGARI",
    "Bengali": "BENGALI",
    "Thai": "THAI",
    "Tamil": "TAMIL",
    "Telugu": "TELUGU",
    "Kannada": "KANNADA",
    "Malayalam": "MALAYALAM",
    "Gujarati": "GUJARATI",
    "Gurmukhi": "GURMUKHI",
    "Oriya": "ORIYA",
    "Sinhala": "SINHALA",
    "Myanmar": "MYANMAR",
    "Khmer": "KHMER",
    "Lao": "LAO",
    "Georgian": "GEORGIAN",
    "Armenian": "ARMENIAN",
    "Ethiopic": "ETHIOPIC",
    "Tibetan": "TIBETAN",
    "Syriac": "SYRIAC",
    "Thaana": "THAANA",
    "Mongolian": "MONGOLIAN",
}
KNOWN_SCRIPTS = frozenset(SCRIPTS.values())
SCRIPT_RES = [(regex.compile(rf"\p{{Script_Extensions={name}}}"), ours) for name, ours in SCRIPTS.items()]
CHARACTER_SCRIPTS = frozenset(("CJK", "HIRAGANA", "KATAKANA"))
UNIT = re.compile(r"[^\W\d_]+")


@cache
def script_of(char: str) -> str:
    """The script of a letter ("CJK", "LATIN"), by its Unicode script extensions: the kana length
    mark ー is kana and the iteration mark 々 Han, though their names say neither; UNKNOWN for a
    script the encoders were not trained on (Cherokee, Tifinagh)."""
    return next((ours for pattern, ours in SCRIPT_RES if pattern.match(char)), "UNKNOWN")


def units(text: str) -> list[tuple[str, str]]:
    """(unit, script) for each word of `text`, each Han or kana character a unit of its own."""
    out: list[tuple[str, str]] = []
    for m in UNIT.finditer(text):
        word, run, run_script = m.group(0), "", ""
        for char in word:
            script = script_of(char)
            if script in CHARACTER_SCRIPTS:
                if run:
                    out.append((run, run_script))
                    run = ""
                out.append((char, script))
            elif run and script != run_script:
                out.append((run, run_script))
                run, run_script = char, script
            else:
                run, run_script = run + char, run_script or script
        if run:
            out.append((run, run_script))
    return out


def is_multilingual(text: str) -> bool:
    """Whether the multilingual encoder should read `text` (policy `encoder: auto`)."""
    found = units(text)
    if not found:
        return False
    other = sum(1 for _, script in found if script != "LATIN")
    if other / len(found) >= MULTILINGUAL_SHARE:
        return True
    latin = [u.lower() for u, script in found if script == "LATIN"]
    english = sum(1 for u in latin if u in STOPWORDS)
    # Terse English ("Patient file: 30 years, 100 kg") has no function words either: only text
    # with letters English does not write (é, ñ, ß) is taken for another Latin-script language.
    accented = any(not u.isascii() for u in latin)
    return accented and len(latin) >= MIN_LATIN_WORDS and english / len(latin) < ENGLISH_SHARE


def unreadable(text: str) -> bool:
    """Most of `text`'s words are in scripts neither encoder knows."""
    found = units(text)
    unknown = sum(1 for _, script in found if script not in KNOWN_SCRIPTS)
    return bool(found) and unknown / len(found) >= UNREADABLE_SHARE
