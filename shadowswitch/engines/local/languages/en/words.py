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
# The words a run of number words is made of ("twenty five", "three hundred").
CARDINALS: tuple[str, ...] = tuple(_WORDS["cardinals"])
# Stems as arguments.features.TextIndex splits them: "don't" is "don" + "t".
NEGATIONS: frozenset[str] = frozenset(_WORDS["negations"])


SIBILANTS = ("ss", "sh", "ch", "x", "z")  # "-es" is a plural ending only after these
SAME_IN_PLURAL = frozenset(_WORDS["same_in_plural"])  # series, news
IE_NOUNS = frozenset(_WORDS["ie_nouns"])  # movies → movie, not movy
US_NOUNS = frozenset(_WORDS["us_nouns"])  # statuses → status


def stem(word: str) -> str:
    """The singular of a plural, so that a word and its plural meet: "names" → "name" (not
    "nam", which "name" never gives), "cities" → "city", "boxes" → "box". Words of three
    letters or fewer stay as they are ("has", "gas"); so do the words the same in both numbers
    ("series", "news"), and the nouns in -ie and -us the endings would misread (tables/words.json)."""
    word = word.lower()
    if len(word) <= 3 or word.endswith(("ss", "us", "is")) or word in SAME_IN_PLURAL:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-1] if word[:-1] in IE_NOUNS else word[:-3] + "y"
    if word.endswith("es") and (word[:-2].endswith(SIBILANTS) or word[:-2] in US_NOUNS):
        return word[:-2]
    return word[:-1] if word.endswith("s") else word
