"""Values the last user turn does not give, read elsewhere in the conversation.

The last user turn is read first (`filler.py`). Then, for a required text, number or enum
parameter still missing:

1. the earlier user turns, newest first, read as the last one is, for all the tool's parameters
   (a value of a span only: no default, no decoder), passing over a turn that gives a parameter
   the last turn filled another value;
2. the tool results since the last user turn, where a key names the parameter (`results.py`):
   the search's `{"users": [{"username": "dwhitfield"}]}` gives `unlock_account`'s `username`.

When the two give different values the engine is unsure and gives neither (it abstains, the
upstream answers). A value the last user turn gave is kept, except where a tool result of this
turn resolved it: the result holds the value read (`"query": "Dana Whitfield"`, or a string with
its words in it, "Jansen" in `"name": "Wim Jansen"`) and, under a
key naming the parameter, another one (`"username": "dwhitfield"`); the agent looked the text's
value up, and the parameter takes what the lookup found.

Each value keeps its provenance: `source: text` with the index of the message it is in, its
span there, and for a tool result's value the `key` it was under.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from shadowswitch.engines.local.arguments.grounding import Filled, Source, Value, in_message
from shadowswitch.engines.local.arguments.params import Param, params_of
from shadowswitch.engines.local.arguments.results import Keyed, keyed_values, read_result
from shadowswitch.engines.local.schema import is_valid
from shadowswitch.request import normalise

FillText = Callable[[dict[str, Any], str], Filled]  # parameters, a text → what that text gives
KINDS = ("string", "integer", "number", "enum")
SPANS = ("text", "enum_choice")  # what an earlier turn may give: a value it says
MIN_PART = 3  # a value read shorter than this is not looked for inside a result's longer value


def read_elsewhere(
    filled: Filled,
    parameters: dict[str, Any],
    earlier: list[tuple[int, str]],
    results: list[tuple[int, str]],
    fill_text: FillText,
) -> None:
    """Fill `filled`'s missing required parameters from the `earlier` user turns and the tool
    `results` of this turn ((message index, text) each), and resolve looked-up values."""
    params = [p for p in params_of(parameters) if p.kind in KINDS]
    keyed = {p.name: found for p in params if (found := _keyed(p, results)) is not None}
    for p in params:
        if p.name in filled.arguments and p.name in keyed:
            read = filled.arguments[p.name]
            if _resolved(read, keyed[p.name], results):
                filled.put(p.name, keyed[p.name])
    wanted = [p for p in params if p.required and p.name in filled.missing]
    said = _said_earlier(wanted, params, filled, earlier, fill_text) if wanted else {}
    for p in wanted:
        options = [v for v in (said.get(p.name), keyed.get(p.name)) if v is not None]
        if not options or len({repr(normalise(v)) for v, _ in options}) > 1:
            continue  # nothing, or two sources that disagree: unsure, so no value
        filled.put(p.name, options[0])
        filled.missing.remove(p.name)


def _said_earlier(
    wanted: list[Param],
    params: list[Param],
    filled: Filled,
    earlier: list[tuple[int, str]],
    fill_text: FillText,
) -> dict[str, Value]:
    """What the earlier user turns say for the wanted parameters, the newest turn first.

    Each turn is read for *all* the tool's parameters, as the last one is: read for the missing
    ones alone, any span fits a free-text parameter, and a ticket id said earlier became a note.
    A turn that gives a parameter the last turn filled another value is passed over: one of the
    two readings is wrong, and which one is not known."""
    found: dict[str, Value] = {}
    names = [p.name for p in params]
    schema = {"type": "object", "properties": {p.name: p.schema for p in params}, "required": names}
    for message, text in earlier:
        if all(p.name in found for p in wanted):
            break
        sub = fill_text(schema, text)
        spans = {n: v for n, v in sub.arguments.items() if sub.sources[n].get("source") in SPANS}
        if any(
            n in filled.arguments and normalise(v) != normalise(filled.arguments[n]) for n, v in spans.items()
        ):
            continue
        for p in wanted:
            if p.name in spans and p.name not in found:
                found[p.name] = (spans[p.name], in_message(sub.sources[p.name], message))
    return found


def _keyed(p: Param, results: list[tuple[int, str]]) -> Value | None:
    """The one value the results give under a key naming `p`, in its type; None if none, or
    if they give two."""
    entries = keyed_values(results, p.name)
    if not entries:
        return None
    message, entry = entries[0]
    value = as_param(entry.value, p)
    if value is None:
        return None
    text = dict(results)[message]
    source: Source = {
        "source": "text",
        "message": message,
        "start": entry.start,
        "end": entry.end,
        "text": text[entry.start : entry.end],
        "key": entry.key,
    }
    return value, source


def as_param(value: Any, p: Param) -> Any:
    """A result's scalar as the parameter's value: itself if valid; a number written as a
    string for a number parameter; an integer as its digits for a string one; else None."""
    if is_valid(value, p.schema):
        return value
    converted: Any = None
    if isinstance(value, str) and p.kind in ("integer", "number"):
        try:
            converted = int(value) if p.kind == "integer" else float(value)
        except ValueError:
            return None
    elif isinstance(value, int) and not isinstance(value, bool) and p.kind == "string":
        converted = str(value)
    return converted if converted is not None and is_valid(converted, p.schema) else None


def _resolved(read: Any, keyed: Value, results: list[tuple[int, str]]) -> bool:
    """The text's value was looked up: the result message the keyed value is in also holds the
    value read, under another key."""
    value, source = keyed
    if normalise(read) == normalise(value):
        return False
    text = dict(results)[source["message"]]
    return any(_same(read, e) for e in read_result(text) if e.key != source.get("key"))


def _same(read: Any, entry: Keyed) -> bool:
    """The entry holds the value read: the same value, or a string with the value's words in it
    ("Jansen" in "Wim Jansen")."""
    if not isinstance(read, str | int | float) or isinstance(read, bool):
        return False
    if normalise(read) == normalise(entry.value):
        return True
    if not isinstance(read, str) or not isinstance(entry.value, str) or len(read.strip()) < MIN_PART:
        return False
    return re.search(rf"(?<!\w){re.escape(normalise(read))}(?!\w)", normalise(entry.value)) is not None
