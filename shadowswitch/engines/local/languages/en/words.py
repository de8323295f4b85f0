"""The English words every request is read with: stopwords, number words, negations.

They are language, not a domain, so no agent is better off without them (tables/words.json).
"""

from __future__ import annotations

from shadowswitch.engines.local.languages.base import table

_WORDS = table(__package__ or __name__, "words")

# Words that never open or close a value ("the", "please"), nor name a parameter.
STOPWORDS: frozenset[str] = frozenset(_WORDS["stopwords"])
# Numbers written as words: "two tickets", "a dozen eggs", "twice".
WORD_NUMBERS: dict[str, int] = dict(_WORDS["numbers"])
# Stems as arguments.features.TextIndex splits them: "don't" is "don" + "t".
NEGATIONS: frozenset[str] = frozenset(_WORDS["negations"])


SIBILANTS = ("ss", "sh", "ch", "x", "z")  # "-es" is a plural ending only after these


def stem(word: str) -> str:
    """The singular of a plural, so that a word and its plural meet: "names" → "name" (not
    "nam", which "name" never gives), "cities" → "city", "boxes" → "box". Words of three
    letters or fewer stay as they are ("has", "gas")."""
    word = word.lower()
    if len(word) <= 3 or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("es") and word[:-2].endswith(SIBILANTS):
        return word[:-2]
    return word[:-1] if word.endswith("s") else word
