"""The English the argument extraction reads: stopwords, number words, negations.

Not optional knowledge behind `Knowledge`: every request is read with these, as with the
extraction's patterns (dates, "from X to Y"), which are English too. They are language, not a
domain, so no agent is better off without them; they live here, in one module, so that the
English the engine assumes is in one place, and another language would be a sibling module
(the encoder's `multilingual` setting chooses among tools, but the values are read this way).
"""

from __future__ import annotations


def _words(text: str) -> list[str]:
    return text.split()


# Words that never open or close a value ("the", "please"), nor name a parameter.
STOPWORDS = frozenset(
    _words(
        "a an the of to in on at for from by with and or but is are was were be been am i me my "
        "we our you your it its this that these those can could would will shall should may "
        "might must do does did please what which who whom whose when where why how there here "
        "want need like get find tell show give let let's some any all about into over under "
        "also just then than as if so not no yes hi hey hello thanks thank help me us them they "
        "he she his her him have has had make using use i'm i'd i've it's what's up out"
    )
)

_ZERO_TO_TWENTY = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty"
)
# Numbers written as words: "two tickets", "a dozen eggs", "twice".
WORD_NUMBERS = {w: i for i, w in enumerate(_words(_ZERO_TO_TWENTY))} | {
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
    "hundred": 100,
    "dozen": 12,
    "once": 1,
    "twice": 2,
    "single": 1,
    "double": 2,
    "triple": 3,
    "first": 1,
    "second": 2,
    "third": 3,
}

# Stems as arguments.features.TextIndex splits them: "don't" is "don" + "t".
NEGATIONS = frozenset(("not", "no", "t", "without", "dont", "never", "exclude", "disable", "non"))
