"""A code parameter's value is written like the code its description shows as an example.

Tool schemas often give an id's form in words, not as a pattern: "Ticket id, like INC-1042",
"Access group, like finance-share", "Username of the account, like jdoe", "The order id, such as
'#W0000000'". `code_shapes` reads the shapes of those examples, and two rules use them:

- `recall.overrule`: a value read from the words and written like none of them ("VPN" or "Oleg
  Koval" for a username, "Lin Chen" for a group) is no such id, as one written unlike the records'
  ids is not: it is dropped, and the parameter is missing unless the memory copies a value;
- `like_examples`: a parameter still missing whose example is a code with digits or marks
  ("INC-1042", "finance-share") takes the one token of the user's turns written like it (the last
  turn's, else the earlier turns'). Two such tokens: unsure, so none. An example of letters alone
  ("jdoe") finds nothing: any word is written like it.

A parameter has code shapes when an example is a code (one token with a digit or a mark), or when
the parameter is an id and its example one token (`jdoe` for a username).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

from shadowswitch.engines.local.arguments.features import QUOTED_EXAMPLE, shape
from shadowswitch.engines.local.arguments.grounding import Filled, Source
from shadowswitch.engines.local.arguments.params import Param, described_as, params_of
from shadowswitch.engines.local.arguments.pointer import ID_WORDS
from shadowswitch.request import message_text

# The examples after a cue run to the end of the clause: "like LT-4410 or PH-2203)".
CUE = re.compile(r"(?i)\b(?:like|such as|e\.g\.,?|eg\.|for example,?|for instance,?)\s+([^;()\n]+)")
SEPARATOR = re.compile(r"\s*(?:,|\bor\b|\band\b)\s*")
MARK = re.compile(r"[\d\-_.@/#:]")  # what a code has that a word has not
TOKEN = re.compile(r"[^\s,;!?()\[\]{}\"']+")


@functools.lru_cache(maxsize=1024)  # asked for every string parameter of every request
def examples_of(description: str) -> frozenset[str]:
    """The one-token examples a description gives, quoted or after like / such as / e.g."""
    found = [m.group(1) or m.group(2) for m in QUOTED_EXAMPLE.finditer(description)]
    for m in CUE.finditer(description):
        clause = re.split(r"\.(?:\s|$)", m.group(1), maxsplit=1)[0]  # a sentence's end, not "v1.2"
        found += SEPARATOR.split(clause)
    tokens = (e.strip().strip("'\"`").rstrip(".") for e in found)
    return frozenset(t for t in tokens if len(t) >= 2 and not re.search(r"\s", t))


def code_shapes(p: Param) -> frozenset[str]:
    """The shapes values of `p` are written in, from its examples (empty: not a code parameter)."""
    if p.kind != "string" or "enum" in p.schema:
        return frozenset()
    examples = examples_of(p.description)
    codes = [e for e in examples if MARK.search(e)]  # "v1.2.3", not the "later" of "or later"
    if codes:
        return frozenset(shape(e) for e in codes)
    is_id = p.name_words & ID_WORDS or described_as(p.description) & ID_WORDS
    return frozenset(shape(e) for e in examples) if is_id else frozenset()


def like_examples(filled: Filled, parameters: dict[str, Any], messages: Sequence[dict[str, Any]]) -> None:
    """Fill a missing code parameter with the one token of the user's turns written like its
    examples, when they are codes with digits or marks."""
    users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    taken = {str(v) for v in filled.arguments.values()}
    for p in params_of(parameters):
        if p.name not in filled.missing:
            continue
        shapes = frozenset(s for s in code_shapes(p) if re.search(r"[^aA]", s))  # digits or marks
        if not shapes:
            continue
        for turns in (users[-1:], users[:-1]):  # the last turn first, then the earlier ones together
            found = _tokens(messages, turns, shapes, taken)
            if found:
                if len({value for value, _ in found}) == 1:
                    filled.put(p.name, found[0])
                    filled.missing.remove(p.name)
                break  # two alike: unsure, and an earlier turn is no better


def _tokens(
    messages: Sequence[dict[str, Any]], turns: list[int], shapes: frozenset[str], taken: set[str]
) -> list[tuple[str, Source]]:
    out: list[tuple[str, Source]] = []
    for i in turns:
        text = message_text(messages[i])
        for m in TOKEN.finditer(text):
            token = m.group(0).rstrip(".:-")
            if token not in taken and shape(token) in shapes:
                end = m.start() + len(token)
                source: Source = {"source": "text", "message": i, "role": "user", "start": m.start()}
                out.append((token, {**source, "end": end, "text": token}))
    return out
