"""A request's value memory: every value the conversation holds, each with where it is.

An agent's model writes most argument values by copying them: an id a tool result listed, a code
the user gave three turns ago, the date it worked out itself in an earlier call. The memory reads
every message once:

- a tool result as JSON, each scalar leaf with its path (`orders[2].order_id`,
  `flights[0].flight_number`); a result that is not JSON as text (spans and `key: value` lines);
- every user turn, the agent's own replies and the system prompt as text, with the readers the
  filler uses (numbers, dates, relative days from the stated day, names, identifiers, quotes):
  specific values, and in the user's and the agent's turns phrases of up to three words (a login
  is a lower-case word); no clauses: the memory offers what can be copied;
- the agent's earlier tool calls' arguments, each leaf with its path under the tool's name.

Nothing is invented: a value is a leaf or a span of a message. Each keeps its provenance (message
index, role, path, span). Messages are read once per content (`MemoryReader`'s cache, keyed by a
hash of the role, the content and the stated day): step n of a conversation reads only the
messages step n−1 did not have, whatever the length of the policy in the system prompt.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from shadowswitch.engines.local.arguments.extract import extract
from shadowswitch.engines.local.arguments.results import _lines, _span
from shadowswitch.engines.local.arguments.today import CLOCK, Today, fixed_dates, other_day
from shadowswitch.engines.local.knowledge import Knowledge
from shadowswitch.engines.local.languages.en.addresses import addresses
from shadowswitch.engines.local.runtime.lru import LRU
from shadowswitch.request import ChatView, message_text, normalise

Leaf = str | int | float
SPECIFIC = ("number", "percent", "wordnum", "date", "quoted", "name", "ident", "currency", "place")
ROLES = {"tool": "tool", "function": "tool", "user": "user", "assistant": "assistant", "developer": "system"}
CACHE = 4096  # messages whose reading is kept (a policy prompt, each turn, each result)
PHRASE_WORDS = 3  # the longest phrase of a turn kept: a value, not a clause
MAX_LEAVES = 2000  # leaves read of one tool result: past it, a dump too long to copy from


@dataclass(frozen=True)
class Entry:
    """One value of one message. `path`: the JSON path of a leaf (`users[0].username`; a call's
    argument under its tool, `get_order.order_id`), "" for a span of text; `pattern`: the path
    without its list indices (`users[].username`), which list walking groups siblings by;
    `index`: the position in the innermost list (-1: none); `kind`: the reader's span kind, or
    `json` for a leaf."""

    value: Leaf
    text: str
    path: str
    pattern: str
    index: int
    kind: str
    start: int
    end: int

    @property
    def key(self) -> str:
        """The leaf's own key (`username`), "" for a span."""
        last = self.pattern.rsplit(".", 1)[-1]
        return last.replace("[]", "")

    @property
    def parent(self) -> str:
        """The key of the object or list the leaf is in (`users`), "" for none."""
        parts = self.pattern.split(".")
        return parts[-2].replace("[]", "") if len(parts) > 1 else ""


@dataclass(frozen=True)
class Found:
    """An entry where it is in the request: its message's index and role."""

    entry: Entry
    message: int
    role: str  # tool | user | assistant | call (the agent's tool-call arguments) | system


@dataclass
class ValueMemory:
    """Every value of one request, in message order, and what the agent did with them."""

    found: list[Found] = field(default_factory=list)
    size: int = 0  # messages in the request
    last_user: int = -1  # index of the last user turn
    used: set[str] = field(default_factory=set)  # normalised values earlier calls sent
    used_as: set[tuple[str, str]] = field(default_factory=set)  # (param, normalised value) sent
    sent: set[tuple[str, str]] = field(default_factory=set)  # (tool, normalised value) sent
    focus: set[str] = field(default_factory=set)  # normalised values the agent's latest call sent
    last_reply: str = ""  # the agent's last text reply
    user_text: str = ""  # every user turn, one per line

    def __iter__(self) -> Iterator[Found]:
        return iter(self.found)


class MemoryReader:
    """Builds a request's `ValueMemory`, reading each message's content once (LRU by hash)."""

    def __init__(self, knowledge: Knowledge | None = None, size: int = CACHE) -> None:
        self.knowledge = knowledge
        self.cache: LRU[str, tuple[Entry, ...]] = LRU(size)

    def read(self, request: ChatView, today: Today = CLOCK) -> ValueMemory:
        memory = ValueMemory(size=len(request.messages))
        calls: dict[str, str] = {}  # call id → tool name, for the results that answer them
        for i, message in enumerate(request.messages):
            role = str(message.get("role") or "")
            text = message_text(message)
            if role == "user":
                memory.last_user = i
                memory.user_text += text + "\n"
            if role == "assistant":
                self._calls(message, i, memory)
                calls.update(call_names(message))
                memory.last_reply = text if text.strip() else memory.last_reply
            if not text.strip():
                continue
            kind = ROLES.get(role, "system")
            bare = None
            if kind == "tool":
                bare = bare_result(text, calls.get(str(message.get("tool_call_id") or message.get("name"))))
            for entry in (bare,) if bare else self._entries(kind, text, today):
                memory.found.append(Found(entry, i, kind))
        return memory

    def _entries(self, role: str, text: str, today: Today) -> tuple[Entry, ...]:
        key = hashlib.sha1(f"{role}\x1f{today}\x1f{text}".encode()).hexdigest()
        cached = self.cache.get(key)
        if cached is None:
            cached = tuple(result_entries(text) if role == "tool" else self._spans(text, today, role))
            self.cache.put(key, cached)
        return cached

    def _spans(self, text: str, today: Today, role: str) -> list[Entry]:
        """Specific values; in what the user and the agent say, short phrases too ("pnair",
        "design-assets"): a login or a group's name is written in lower case, like any word."""
        spans = extract(text, self.knowledge, today.day)
        if today.unsure:  # which day "tomorrow" is from is not known: only dates written out
            spans = fixed_dates(spans, extract(text, self.knowledge, other_day(today)))
        said = role in ("user", "assistant")
        kinds = (*SPECIFIC, "phrase") if said else SPECIFIC
        return [
            Entry(s.value, s.text, "", "", -1, s.kind, s.start, s.end)
            for s in spans
            if s.kind in kinds
            and isinstance(s.value, str | int | float)
            and not isinstance(s.value, bool)
            and (s.kind != "phrase" or len(s.text.split()) <= PHRASE_WORDS)
        ] + [  # an address written on one line, a field an entry: tools take addresses as fields
            Entry(
                a.text, a.text, f"address[{n}].{a.field}", f"address.{a.field}", -1, "address", a.start, a.end
            )
            for n, parts in enumerate(addresses(text) if said else ())
            for a in parts
        ]

    def _calls(self, message: dict[str, Any], at: int, memory: ValueMemory) -> None:
        """The agent's earlier calls: each argument leaf an entry (role `call`), and used."""
        sent: set[str] = set()
        for name, arguments in call_arguments(message):
            leaves: list[tuple[str, str, int, Leaf]] = []
            _walk(arguments, name, name, -1, leaves)
            for path, pattern, index, value in leaves:
                written = value if isinstance(value, str) else json.dumps(value)
                entry = Entry(value, written, path, pattern, index, "json", -1, -1)
                memory.found.append(Found(entry, at, "call"))
                key = value_key(value)
                memory.used.add(key)
                memory.used_as.add((entry.key, key))
                memory.sent.add((name, key))
                sent.add(key)
        if sent:  # the record the agent is on: what its latest call looked up or changed
            memory.focus = sent


def call_names(message: dict[str, Any]) -> dict[str, str]:
    """Call id → tool name of an assistant message's calls, in order; a legacy `function_call`'s
    result names the function, so its name is its id."""
    out = {}
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            out[str(call.get("id"))] = function["name"]
    legacy = message.get("function_call")
    if isinstance(legacy, dict) and isinstance(legacy.get("name"), str):
        out[legacy["name"]] = legacy["name"]
    return out


def bare_result(text: str, tool: str | None) -> Entry | None:
    """A result that is one value and nothing else (`find_user_id_by_email` answering
    `mia_garcia_4516`), under the key its tool's name says it returns (`user_id`): the value has no
    key of its own, and the next call copies it by that name."""
    value = text.strip()
    try:
        data = json.loads(value)
    except ValueError:
        data = value
    if not tool or not isinstance(data, str) or not BARE.fullmatch(data):
        return None
    key = returned(tool)
    if not key:
        return None
    start = text.find(data)  # -1: written with escapes, no span to point at
    return Entry(data, data, key, key, -1, "json", start, start + len(data) if start >= 0 else -1)


BARE = re.compile(r"[\w.@#:+\-]{2,64}")  # one token: an id, a code, an email
VERB = re.compile(r"^(?:get|find|lookup|look_up|fetch|search|search_for|retrieve|resolve|read)_")


def returned(tool: str) -> str:
    """What a tool's name says it returns: `find_user_id_by_email` → `user_id`, `getOrderId` →
    `order_id`; "" when the name says nothing (no verb of looking up)."""
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", tool).lower()
    if not VERB.match(name):
        return ""
    return re.split(r"_(?:by|for|from|with|of)_", VERB.sub("", name), maxsplit=1)[0]


def call_arguments(message: dict[str, Any]) -> list[tuple[str, Any]]:
    """(tool name, parsed arguments) of an assistant message's tool calls."""
    out = []
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            continue
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except ValueError:
                continue
        out.append((function["name"], arguments))
    return out


def result_entries(text: str) -> list[Entry]:
    """A tool result's values: its JSON leaves with their paths and spans, else its text read as
    spans and `key: value` lines."""
    try:
        data = json.loads(text)
    except ValueError:
        lines = [
            Entry(k.value, text[k.start : k.end], k.key, k.key, -1, "line", k.start, k.end)
            for k in _lines(text)
        ]
        spans = extract(text)
        return lines + [
            Entry(s.value, s.text, "", "", -1, s.kind, s.start, s.end)
            for s in spans
            if s.kind in SPECIFIC and isinstance(s.value, str | int | float) and not isinstance(s.value, bool)
        ]
    leaves: list[tuple[str, str, int, Leaf]] = []
    _walk(data, "", "", -1, leaves)
    out = []
    at = [0]
    for path, pattern, index, value in leaves[:MAX_LEAVES]:
        key = pattern.rsplit(".", 1)[-1].replace("[]", "")
        span = _span(value, key, text, at[0]) if key else None
        start, end = span if span is not None else (-1, -1)
        at[0] = end if span is not None else at[0]
        written = text[start:end] if span is not None else str(value)
        out.append(Entry(value, written, path, pattern, index, "json", start, end))
    return out


def _walk(node: Any, path: str, pattern: str, index: int, out: list[tuple[str, str, int, Leaf]]) -> None:
    """Scalar leaves in document order (booleans and nulls are no values to copy)."""
    if isinstance(node, dict):
        for k, v in node.items():
            _walk(v, f"{path}.{k}" if path else str(k), f"{pattern}.{k}" if pattern else str(k), index, out)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            _walk(v, f"{path}[{i}]", f"{pattern}[]", i, out)
    elif isinstance(node, str | int | float) and not isinstance(node, bool) and str(node).strip():
        out.append((path, pattern, index, node))


@functools.lru_cache(maxsize=8192)
def _scalar_key(kind: str, value: Any) -> str:
    """`kind` keeps 1 and "1" apart in the cache (they are equal keys of a dict otherwise)."""
    return json.dumps(normalise(value), sort_keys=True, default=str)


def value_key(value: Any) -> str:
    """The normalised spelling values are compared by (`used`, list walking, de-duplication)."""
    if isinstance(value, str | int | float):  # a scalar, cached: the same ids recur at every step
        return _scalar_key(type(value).__name__, value)
    return json.dumps(normalise(value), sort_keys=True, default=str)
