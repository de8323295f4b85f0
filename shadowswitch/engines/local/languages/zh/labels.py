"""The words around a value written in Chinese that say what it is: label words (乘客王芳: the
passenger), a label joined by 是 or 为 (UUID是AB10), and 从/到 before a place or a currency.

The label words (tables/labels.json) let the nearness features read 乘客 as they read
"passenger"; those of two characters or more also end a phrase (languages.zh.spans): one
character is too often part of a name (王天明) to cut at.
"""

from __future__ import annotations

import re

from shadowswitch.engines.local.languages.base import table
from shadowswitch.engines.local.languages.en.words import stem
from shadowswitch.engines.local.languages.zh.numerals import BIG_UNITS, DIGITS, UNITS
from shadowswitch.engines.local.languages.zh.script import CJK_RUN

CUES: dict[str, str] = table(__package__ or __name__, "labels")["labels"]
CUE_RE = re.compile("|".join(sorted(CUES, key=len, reverse=True)))
LABEL_RE = re.compile("|".join(sorted((c for c in CUES if len(c) > 1), key=len, reverse=True)))
LABEL_END = re.compile(f"(?:{LABEL_RE.pattern})$")
IS = re.compile(r"(?:是|为|设为|设置为|改为|改成|换成|叫做)?[\s：:]*$")  # 姓名是王芳, 版本为v2
LATIN_LABEL = re.compile(r"([A-Za-z][A-Za-z0-9_]*)\s*$")

FROM = frozenset("从自")  # 从上海, 自北京
TO = frozenset("到往去至飞成")  # 到东京, 飞往, 去巴黎, 飞东京, 换成欧元
NUMERALS = frozenset("0123456789").union(DIGITS, UNITS, BIG_UNITS)


def chinese_tokens(text: str) -> list[tuple[int, str]]:
    """Chinese text as words for the nearness features: a cue word (乘客) as its English word
    (passenger), every other character as itself, so that distance counts what lies between."""
    out = []
    for run in CJK_RUN.finditer(text):
        i = run.start()
        while i < run.end():
            m = CUE_RE.match(text, i, run.end())
            out.append((i, stem(CUES[m.group(0)]) if m else text[i]))
            i = m.end() if m else i + 1
    return out


def labels_before(text: str, at: int) -> frozenset[str]:
    """The English words of the label written right before `at`: a label word (乘客王芳,
    姓名：王芳, 版本为v2), or an English word joined to the value by 是 or 为 (UUID是AB10)."""
    before = text[max(0, at - 24) : at]
    joined = IS.search(before)
    assert joined is not None  # every part of the pattern is optional
    before, connector = before[: joined.start()], joined.group(0).strip(" ：:")
    words = set()
    if connector and (latin := LATIN_LABEL.search(before)):
        words.add(stem(latin.group(1)))
        before = before[: latin.start()]
    if label := LABEL_END.search(before):
        words.add(stem(CUES[label.group(0)]))
    return frozenset(words)


def role_before(text: str, at: int, currency: bool) -> str | None:
    """Chinese writes the word right before the value, without a space: 从巴黎到罗马; a currency
    after its amount is the source (一千二英镑), one asked for the target (是多少美元)."""
    written = text[:at].rstrip()
    char = written[-1:]
    said = "source" if char in FROM else "target" if char in TO else None
    if currency and said is None and char:
        said = "source" if char in NUMERALS else "target" if written.endswith("多少") else None
    return said
