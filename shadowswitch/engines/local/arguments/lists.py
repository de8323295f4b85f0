"""Find written lists such as `(3, 4)`, `[1, 2, 3]` or `apples, pears and plums` for array parameters."""

from __future__ import annotations

import ast
import re
from typing import Any

from shadowswitch.engines.local.arguments.extract import Span, identifiers, numbers, quoted

NUM = r"-?\d+(?:\.\d+)?"
# "34, 2, 56, 7, 9, and 12": the last item after "and"/"or" belongs to the run too.
NUMBER_RUN = re.compile(rf"(?<![\w.]){NUM}(?:\s*,\s*{NUM})+(?:,?\s+(?:and|or)\s+{NUM}(?!\w|\.\d))?")
RUN_SEPARATOR = re.compile(r"\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+")
BRACKETED = re.compile(r"[\[(]([^\[\]()]{1,200})[\])]")
ENUMERATION = re.compile(
    r"(?:[\w'\-]+(?: [\w'\-]+){0,3}, )+[\w'\-]+(?: [\w'\-]+){0,3},? (?:and|or) [\w'\-]+(?: [\w'\-]+){0,3}"
)


SEPARATOR = re.compile(r"\s*(?:,|;|,?\s*(?:and|or))\s*")


def list_spans(text: str) -> list[Span]:
    out: list[Span] = literals(text) + joined(quoted(text), text) + joined(identifiers(text), text)
    for m in BRACKETED.finditer(text):
        items = _split(m.group(1))
        if len(items) >= 2:
            out.append(Span(m.group(0), [_typed(i) for i in items], "list", m.start(), m.end()))
    for m in NUMBER_RUN.finditer(text):  # "46.60,1.88": numbers joined by commas
        thousands = re.search(r"\d,\d{3}(?!\d)", m.group(0))  # "1,000", not a list of 1 and 0
        if not thousands and not any(o.start <= m.start() and m.end() <= o.end for o in out):
            values = [float(x) if "." in x else int(x) for x in RUN_SEPARATOR.split(m.group(0))]
            out.append(Span(m.group(0), values, "list", m.start(), m.end()))
    nums = {s.start: s for s in numbers(text) if s.kind == "number"}
    if len(nums) >= 2:  # "the sum of 133 and 34": every number, in order
        ordered = [nums[k] for k in sorted(nums)]
        first, last = ordered[0], ordered[-1]
        out.append(
            Span(text[first.start : last.end], [s.value for s in ordered], "list", first.start, last.end)
        )
    for m in ENUMERATION.finditer(text):
        items = _split(re.sub(r",? (?:and|or) ", ", ", m.group(0)))
        out.append(Span(m.group(0), [_typed(i) for i in items], "list", m.start(), m.end()))
    return out


def literals(text: str) -> list[Span]:
    """Lists written as code, nested ones included (`[[1, 2], [3, 4]]`, `[(45.7, 4.8), ...]`),
    read with `ast.literal_eval`; tuples become lists, as JSON has none."""
    out: list[Span] = []
    for start, char in enumerate(text):
        if char not in "[(" or any(o.start < start < o.end for o in out):
            continue
        end = _closing(text, start)
        if end is None or not any(c in text[start + 1 : end] for c in "[("):
            continue  # flat lists are read, more leniently, by BRACKETED
        try:
            value = ast.literal_eval(text[start : end + 1])
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            continue
        if isinstance(value, list | tuple) and len(value) >= 1:
            out.append(Span(text[start : end + 1], as_json(value), "list", start, end + 1))
    return out


def _closing(text: str, start: int, limit: int = 2000) -> int | None:
    """The index of the bracket closing the one at `start`, if the brackets balance."""
    depth = 0
    for i in range(start, min(len(text), start + limit)):
        if text[i] in "[(":
            depth += 1
        elif text[i] in "])":
            depth -= 1
            if depth == 0:
                return i
    return None


def as_json(value: Any) -> Any:
    """Tuples as lists, recursively: JSON has no tuples."""
    return [as_json(v) for v in value] if isinstance(value, list | tuple) else value


def joined(spans: list[Span], text: str) -> list[Span]:
    """Quoted strings or identifiers one after another ("'Taj Mahal', 'India', and 'art'",
    "ITM456 and ITM789"): the items, as written."""
    runs: list[list[Span]] = []
    for span in sorted(spans, key=lambda x: x.start):
        if runs and SEPARATOR.fullmatch(_between(text, runs[-1][-1], span)):
            runs[-1].append(span)
        else:
            runs.append([span])
    return [
        Span(text[r[0].start : r[-1].end], [x.value for x in r], "list", r[0].start, r[-1].end)
        for r in runs
        if len(r) >= 2
    ]


def _between(text: str, left: Span, right: Span) -> str:
    """The text between two spans, outside their quote marks."""
    return text[left.end : right.start].strip("'\"`“”‘’")


def _split(inner: str) -> list[str]:
    items = [i.strip().strip("'\"` ") for i in re.split(r"[,;]", inner)]
    return [i for i in items if i]


def _typed(item: str) -> int | float | str:
    found = numbers(item)
    if found and found[0].text.strip() == item.strip():
        value = found[0].value
        return value if isinstance(value, int | float) else item
    return item
