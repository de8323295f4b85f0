"""Which value of the memory a parameter copies: (parameter, value) pairs scored with features that
carry across tools and agents.

A value of the request's memory (`memory.py`) is offered to a parameter when it is valid in the
parameter's type. Its features say how well its place fits the parameter, not what it says:

- the key it is under against the parameter's name (`key_name`: the same words, or the list's
  key in the singular and its own, `orders[0].id` for `order_id`; `key_part`: the share of the
  name's words among them) and description (`key_desc`: `username` for an assignee described as
  "the username of the person");
- where it is (`src:<role>`, `src:last_user`, `recency`: 1 for the newest message), how it is
  written (`kind:<reader's kind>`, `shape`: like an example the description quotes);
- a record's value under the parameter's own name, offered to a tool that changes it
  (`set_mailbox_quota`'s `quota_gb` from the mailbox just looked up), is the value to be
  replaced (`stale`), not the one wanted; an item of a list under that name is one of the
  options (`payment_methods[1].payment_id` for `change_order_payment`), never stale;
- what the agent did with it: an earlier call sent it (`used`; under this parameter's name,
  `used_same`; to this same tool, `same_call`: a look-up is not repeated, a write not made twice),
  its latest call sent it (`focus`: the record it is on, which a change after a look-up acts on),
  the agent's last reply mentioned it (`mentioned`); the user wrote it (`said`: an order number
  the customer gave, among the record's); in a list (`in_list`), whether
  it is the first of its list no call has sent yet (`first_unused`) or one a call already sent
  (`list_used`): a list of ids is walked one call at a time by the tool that began it (for another
  tool, `next_elsewhere` and `used_elsewhere`: learned only), once the agent began it (the first
  of a list nothing was taken from, `list_first`, is left to learning; so are `same_call`, `focus`
  and `said`, which weigh nothing in the prior: each agent's pairs say what they weigh);
- for an id of a tool result, whether another value of its record is written in the user's turns
  (`record_said`: "my Amex card" for the method whose `brand` is Amex) or the agent's last reply
  (`record_mentioned`): `records.py`, learned only, like `said`.

The score is linear in the features: the prior's hand-set weights (`PRIOR`), or a learned state's
shared weights (`learning/values.fit_pointer`), fitted on exemplars over every tool and parameter.
Each distinct value is offered once, at its best-scoring place, which is its provenance.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from shadowswitch.engines.local.arguments.elsewhere import as_param
from shadowswitch.engines.local.arguments.features import example_shapes, shape
from shadowswitch.engines.local.arguments.memory import Entry, Found, ValueMemory, value_key
from shadowswitch.engines.local.arguments.params import Param, stem
from shadowswitch.engines.local.arguments.records import named
from shadowswitch.engines.local.arguments.results import singular, words
from shadowswitch.engines.local.languages.en.addresses import field_of

SCALAR_KINDS = ("string", "integer", "number")
PLAIN = {"type", "description", "title", "examples"}  # a string schema with only these: any string
ID_WORDS = frozenset(("id", "code", "number", "ref", "reference", "key", "sku", "username", "login"))
WRITES = re.compile(
    r"(?i)(?:set|update|change|edit|raise|modify)(?:_|[A-Z]|$)"
)  # a tool that changes a value
MEMORY = "memory"  # the feature every memory offer has: tells its exemplars from the filler's

# Fitted (`research/pointer_prior.py --absolute`, a conditional logit) on the first 70% of the help
# desk's and the travel agent's recorded calls, rounded; the list walk's and `stale`'s weights are
# set by hand (neither traffic walks a list or has a stale value served): on the held-out calls
# the fitted weights put the upstream's value first for 161 of 233 offered arguments (the first
# hand-set weights: 149), and outside the last user turn (what `recall` serves from), at
# `SERVE`/`MARGIN` 2 they are right for 343 of 366 (16 of the wrong ones stale, now weighed).
PRIOR: dict[str, float] = {
    "key_desc": 4.9,
    "shape": 3.9,
    "key_name": 1.5,
    "key_part": 1.4,
    "id_id": 1.4,
    "src:last_user": 2.0,
    "src:user": 1.9,
    "src:call": 0.4,
    "src:tool": 0.3,
    "src:assistant": -0.4,
    "src:system": -2.2,
    "kind:name": 1.8,
    "kind:quoted": 1.4,
    "kind:json": 0.7,
    "kind:ident": 0.7,
    "kind:date": -0.7,
    "kind:wordnum": -0.8,
    "kind:number": -1.5,
    "kind:phrase": -1.7,
    "recency": 1.2,
    "used": 0.2,
    "used_same": 0.3,
    "mentioned": -0.3,
    "count": -0.2,
    "in_list": -0.7,
    "list_first": -0.7,
    "first_unused": 3.0,
    "list_used": -4.0,
    "stale": -5.0,
}


@dataclass(frozen=True)
class Offer:
    """A value offered to a parameter, where it is, and its features and score."""

    value: Any
    found: Found
    features: dict[str, float]
    score: float
    prior: float  # the prior's score alone: what learned weights are fitted on top of


def offers(
    p: Param, memory: ValueMemory, learned: Mapping[str, float] | None = None, tool: str = ""
) -> list[Offer]:
    """The memory's values for `p` of `tool`, one per distinct value, best first. `learned`: a
    state's pointer weights, added to the prior's score as `learning/values.pick` fits them
    (`base`: the prior's score)."""
    writes = bool(WRITES.match(tool))
    walks = walks_of(memory)
    said = {value_key(f.entry.value) for f in memory if f.role == "user"}
    records = named(memory)
    typed: dict[tuple[type, Any], Any] = {}  # a value read once per request, however often written
    counts: dict[str, int] = {}
    places: dict[tuple[str, str, int, str, str], tuple[Any, Found]] = {}  # one per place and value
    for found in memory:
        raw = (
            found.entry.text
            if p.kind == "string" and isinstance(found.entry.value, float)
            else found.entry.value
        )
        slot = (type(raw), raw)
        if slot not in typed:
            typed[slot] = as_param(raw, p) if not _plain_string(p, raw) else raw
        value = typed[slot]
        if value is None:
            continue
        key = value_key(value)
        counts[key] = counts.get(key, 0) + 1
        places.setdefault(
            (key, found.role, found.message, found.entry.pattern, found.entry.kind), (value, found)
        )
    best: dict[str, Offer] = {}
    for (key, *_), (value, found) in places.items():
        feats = features(p, found, value, memory, walks, counts[key])
        if (tool, key) in memory.sent:
            feats["same_call"] = 1.0
        if key in memory.focus:
            feats["focus"] = 1.0
        if key in said:
            feats["said"] = 1.0
        if set(stems(found.entry.key)[-1:]) & ID_WORDS:  # an id is chosen by its record, never said
            feats.update(records.features(found))
        if writes and found.role == "tool" and "key_name" in feats and found.entry.index < 0:
            feats["stale"] = 1.0  # a record's own field; a list under the name is the options
        if tool and key in walks.listed and tool not in walks.walkers.get(key, frozenset()):
            _walked_by_another(feats)
        prior = score = linear(feats, PRIOR)
        if learned:
            score += sum(learned.get(k, 0.0) * v for k, v in {**feats, "base": prior}.items())
        if key not in best or score > best[key].score:
            best[key] = Offer(value, found, feats, round(score, 4), round(prior, 4))
    return sorted(best.values(), key=lambda o: -o.score)


def _walked_by_another(feats: dict[str, float]) -> None:
    """A list another tool walked is no walk of this one: once `get_order` found the order, the
    cancellation takes the order in focus, not the walk's next one (`first_unused`), and the order
    found is no step of a walk (`list_used`). Kept apart, for learning to weigh."""
    for walk, elsewhere in (("first_unused", "next_elsewhere"), ("list_used", "used_elsewhere")):
        if walk in feats:
            feats[elsewhere] = feats.pop(walk)


def _plain_string(p: Param, raw: Any) -> bool:
    """A string for a parameter that takes any string: valid as it is, no schema check needed."""
    return p.kind == "string" and isinstance(raw, str) and set(p.schema) <= PLAIN


def linear(feats: Mapping[str, float], weights: Mapping[str, float]) -> float:
    return weights.get("bias", 0.0) + sum(weights.get(k, 0.0) * v for k, v in feats.items())


def features(
    p: Param, found: Found, value: Any, memory: ValueMemory, walks: Walks, count: int
) -> dict[str, float]:
    """The pair's features (only those that are not zero)."""
    entry = found.entry
    name, own, parent = stems(p.name), stems(entry.key), stems(entry.parent, plural=True)
    key = value_key(value)
    feats: dict[str, float] = {MEMORY: 1.0, f"src:{found.role}": 1.0, f"kind:{entry.kind}": 1.0}
    if names(p, entry):
        feats["key_name"] = 1.0
    # "id" is in every id's key: only the other words say which id (`customer_id` is no `order_id`)
    named = set(name) - ID_WORDS
    if own and named:
        feats["key_part"] = len(named & {*own, *parent}) / len(named)
    if ({*own, *parent} - ID_WORDS) & p.desc_words:
        feats["key_desc"] = 1.0
    if name and own and name[-1] in ID_WORDS and own[-1] in ID_WORDS:
        feats["id_id"] = 1.0
    if isinstance(value, str) and shape(value) in example_shapes(p.description):
        feats["shape"] = 1.0
    if found.message == memory.last_user:
        feats["src:last_user"] = 1.0
    feats["recency"] = 1.0 / (1 + max(0, memory.size - 1 - found.message))
    if key in memory.used:
        feats["used"] = 1.0
    if (p.name, key) in memory.used_as:
        feats["used_same"] = 1.0
    if isinstance(value, str | int | float) and _mentioned(str(value), memory.last_reply):
        feats["mentioned"] = 1.0
    if key in walks.listed:  # the value's place in a list, wherever this occurrence is
        feats["in_list"] = 1.0
        if key in memory.used:
            feats["list_used"] = 1.0
        elif key in walks.next:
            feats["first_unused"] = 1.0
        elif key in walks.first:
            feats["list_first"] = 1.0
    feats["count"] = math.log1p(count - 1)
    return {k: round(v, 4) for k, v in feats.items() if v}


def names(p: Param, entry: Entry) -> bool:
    """The entry's key names the parameter: the same words (under its parent's, `customer.id`
    for `customer_id`); a list of ids named by its items (`orders[]` for `order_id`); a field of
    an address written out (`address1` for its first line)."""
    name, own, parent = stems(p.name), stems(entry.key), stems(entry.parent, plural=True)
    if own and (own == name or (parent[-1:] + own) == name or (*parent, *own) == name):
        return True
    if _listed_ids(entry.pattern, entry.key, name):
        return True
    return entry.kind == "address" and field_of(p.name) == entry.key


@dataclass(frozen=True)
class Walks:
    """The values tool results list (`listed`); of each list an earlier call took a value from,
    the first value no call sent (`next`); of each list none was taken from, its first (`first`).
    Two values found where one was looked for (two customers named Ann) is a list too: only a walk
    already begun says the next one is wanted; the first of a fresh list is left to learning."""

    listed: frozenset[str]
    next: frozenset[str]
    first: frozenset[str]
    walkers: Mapping[str, frozenset[str]]  # a listed value → the tools that took values of its list


def walks_of(memory: ValueMemory) -> Walks:
    """A list of one value is no walk: only lists of two values or more count."""
    lists: dict[tuple[int, str], list[str]] = {}
    for found in memory:
        if found.role == "tool" and found.entry.index >= 0:
            slot = (found.message, found.entry.pattern)
            lists.setdefault(slot, []).append(value_key(found.entry.value))
    walked = [values for values in lists.values() if len(set(values)) > 1]
    begun = [values for values in walked if memory.used.intersection(values)]
    firsts = (next((v for v in values if v not in memory.used), None) for values in begun)
    walkers: dict[str, frozenset[str]] = {}
    for values in begun:
        tools = frozenset(tool for tool, key in memory.sent if key in values)
        walkers.update((v, walkers.get(v, frozenset()) | tools) for v in values)
    return Walks(
        frozenset(v for values in walked for v in values),
        frozenset(v for v in firsts if v),
        frozenset(values[0] for values in walked if not memory.used.intersection(values)),
        walkers,
    )


@functools.lru_cache(maxsize=4096)
def stems(key: str, plural: bool = False) -> tuple[str, ...]:
    """A key's words as stems (`plural`: a list's key, each word in the singular): "orderItems"
    → (order, item)."""
    return tuple(stem(singular(w) if plural else w) for w in words(key))


def _listed_ids(pattern: str, key: str, name: tuple[str, ...]) -> bool:
    """A list item under a key naming what an id parameter identifies (`orders[]`, `order_id`)."""
    if not pattern.endswith("[]") or not name or name[-1] not in ID_WORDS:
        return False
    return stems(key, plural=True) == name[:-1]


def _mentioned(value: str, reply: str) -> bool:
    if len(value) < 3 or not reply or value.lower() not in reply.lower():
        return False
    return re.search(rf"(?<!\w){re.escape(value)}(?!\w)", reply, re.IGNORECASE) is not None
