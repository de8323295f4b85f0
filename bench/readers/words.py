"""English number words, written the way num2words writes them ("one thousand, nine hundred and
five", "twenty-five"): the oracle the English number reader is checked against. Our own writer,
so that no LGPL package is needed even among the development dependencies."""

from __future__ import annotations

ONES = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
SCALES = ((10**9, "billion"), (10**6, "million"), (1000, "thousand"))


def below_hundred(n: int) -> str:
    if n < 20:
        return ONES[n]
    tens, ones = divmod(n, 10)
    return TENS[tens] + (f"-{ONES[ones]}" if ones else "")


def below_thousand(n: int) -> str:
    hundreds, rest = divmod(n, 100)
    if not hundreds:
        return below_hundred(rest)
    head = f"{ONES[hundreds]} hundred"
    return f"{head} and {below_hundred(rest)}" if rest else head


def number_words(n: int) -> str:
    """0 <= n < 10**12 in words."""
    if not 0 <= n < 10**12:
        raise ValueError(f"{n}: out of range")
    if n < 1000:
        return below_thousand(n)
    chunks = []
    for value, name in SCALES:
        count, n = divmod(n, value)
        if count:
            chunks.append(f"{below_thousand(count)} {name}")
    if not n:
        return ", ".join(chunks)
    if n < 100:  # "one thousand and five", as a British writer says it
        return f"{', '.join(chunks)} and {below_hundred(n)}"
    return f"{', '.join(chunks)}, {below_thousand(n)}"
