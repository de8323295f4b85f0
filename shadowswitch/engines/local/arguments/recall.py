"""Fill what the text left missing from the request's value memory, or leave it missing.

After the last user turn, the earlier turns and this turn's tool results (`filler.py`,
`elsewhere.py`), a required parameter still missing is offered the memory's values (`pointer.py`):

- a text or number parameter takes the best offer outside the last user turn (which the filler
  read with the encoder's help, and found nothing convincing in), not a value another parameter
  of the call already took (a ticket's id is not also its note), when it scores at least `SERVE` and no other
  value comes within `MARGIN` of it (two values alike: unsure, so none); a list of ids is walked,
  as the features rank the first id no earlier call sent above the others;
- an array from a list of a tool result, record by record (`arrays.py`), else missing;
- a parameter the agent writes rather than copies (a note, a summary, a message) is not copied;
- anything else stays missing: the engine abstains (`missing_value:<param>`), never invents.

`overrule` goes further for an id the words do not hold: a value the filler read, no leaf named
as the parameter, gives way to a tool result's leaf named as the parameter when that leaf is the
memory's sure offer. Either way what the memory offered is recorded, so that the pairs say how
sure the pointer is of such a copy (a customer's id after the look-up by email) rather than its
score's distance to the next offer alone. `address` fills a tool that takes an address as fields
from one address written out in the conversation.

A served value's provenance is where it is: `source: text`, the message's index and role, the
JSON `path` of a leaf, and its span when it has one. What each parameter was offered is recorded
compactly (`grounding.Read`: the best `RECORDED` offers' features and scores, never more), for the
learned pointer weights (`learning/values.fit_pointer`).
"""

from __future__ import annotations

from typing import Any

from shadowswitch.engines.local.arguments.arrays import array_value
from shadowswitch.engines.local.arguments.examples import code_shapes
from shadowswitch.engines.local.arguments.features import shape
from shadowswitch.engines.local.arguments.grounding import Filled, Read, Source
from shadowswitch.engines.local.arguments.memory import Found, ValueMemory, value_key
from shadowswitch.engines.local.arguments.params import Param, described_as, params_of
from shadowswitch.engines.local.arguments.pointer import ID_WORDS, SCALAR_KINDS, Offer, names, offers
from shadowswitch.engines.local.languages.en.addresses import field_of
from shadowswitch.engines.local.learned_state import Pointer
from shadowswitch.engines.local.schema import is_valid

SERVE = 2.0  # the least score a copied value is served at
MARGIN = 2.0  # ... ahead of any other value by at least this
RECORDED = 8  # offers per parameter kept in the trace
# Parameters the agent writes rather than copies (a note, a summary): an id said earlier is not one
WRITTEN = frozenset(
    ("note", "summary", "description", "reason", "message", "body", "comment", "text", "content")
)


def recall(
    filled: Filled,
    parameters: dict[str, Any],
    memory: ValueMemory,
    pointer: Pointer | None = None,
    tool: str = "",
) -> None:
    """Fill `filled`'s missing required parameters of `tool` from `memory` where it is sure
    (`pointer`: a state's learned pointer)."""
    for p in params_of(parameters):
        if p.name not in filled.missing or p.name_words & WRITTEN:
            continue
        value: tuple[Any, Source] | None = None
        if p.kind in SCALAR_KINDS:
            value = _scalar(p, memory, (pointer, tool), filled)
        elif p.kind == "array":
            value = array_value(p, memory)
        if value is not None and is_valid(value[0], p.schema):
            filled.put(p.name, value)
            filled.missing.remove(p.name)


def overrule(
    filled: Filled,
    parameters: dict[str, Any],
    memory: ValueMemory,
    pointer: Pointer | None = None,
    tool: str = "",
) -> None:
    """Replace a value the filler read by the memory's copy, where a tool result has a leaf named
    as the parameter (`customer_id` → `customer_id`) that is the sure offer and the filler's value
    is no leaf of that name: its best span for an id the user never said (their email or name for
    `customer_id`) is a guess, the record's own field is not.

    An id the records or the description's example show written otherwise is no such id: where
    tool results hold ids named as the parameter (`orders[]` for `order_id`: LK862902), or its
    description shows one ("like jdoe"), and the filler's value is written like none of them (the
    customer's email, their name, "VPN" for a username), it is dropped, and the parameter is
    missing unless the memory's copy is sure (`recall`)."""
    for p in params_of(parameters):
        if p.kind not in SCALAR_KINDS or p.name not in filled.arguments or p.name_words & WRITTEN:
            continue
        current = value_key(filled.arguments[p.name])
        weights = pointer.weights if pointer else None
        found = [o for o in offers(p, memory, weights, tool) if o.found.message != memory.last_user]
        if any(value_key(o.value) == current and "key_name" in o.features for o in found):
            continue  # the words' value is a record's field of that name too
        earlier = filled.sources.get(p.name, {}).get("message") not in (None, memory.last_user)
        described = described_as(p.description) & ID_WORDS  # "Username of the technician"
        if _unlike_the_ids(p, filled.arguments[p.name], (found, described), memory if earlier else None):
            del filled.arguments[p.name], filled.sources[p.name]
            if p.required:
                filled.missing.append(p.name)
        if found and "key_name" not in found[0].features and described:
            found = [o for o in found if _keyed(o, described)]  # `users[0].username` for an assignee
        keyed = bool(found) and ("key_name" in found[0].features or _keyed(found[0], described))
        if not found or found[0].found.role != "tool" or not keyed:
            continue
        copied = _sure(found, _margin(pointer, tool, p)) and is_valid(found[0].value, p.schema)
        _record(filled, p, found, copied)  # what the memory offered: learning's pointer cases
        if copied:
            filled.put(p.name, (found[0].value, provenance(found[0].found)))
            if p.name in filled.missing:
                filled.missing.remove(p.name)


def address(
    filled: Filled,
    parameters: dict[str, Any],
    memory: ValueMemory,
    pointer: Pointer | None = None,
    tool: str = "",
) -> None:
    """A tool that takes an address as fields (`line1`, `city`, `state`, `zip`) takes them all
    from one address the conversation writes out in full: the only one, or the one the memory's
    scores put ahead of the others by the margin (the customer's new address, which the agent's
    confirmation repeats; a record's own fields are no address written out). Its fields replace
    what the filler read of them (spans of words, not an address's parts); a field it does not
    have is left unset if optional, missing if required; another parameter the filler gave one of
    the address's values is missing too (`recall` may then copy it)."""
    fields = {p.name: (p, f) for p in params_of(parameters) if p.kind == "string" and (f := field_of(p.name))}
    first = next((p for p, f in fields.values() if f == "line1"), None)
    if first is None or len(fields) < 3:
        return
    # the addresses written out, best first: one alone is sure, of two the best by the margin
    found = [
        o
        for o in offers(first, memory, pointer.weights if pointer else None, tool)
        if o.found.entry.kind == "address" and "key_name" in o.features
    ]
    sure_of = bool(found) and (len(found) == 1 or _sure(found, _margin(pointer, tool, first)))
    _record(filled, first, found, sure_of)
    if not sure_of:
        return
    top = found[0].found
    at = top.entry.path.rsplit(".", 1)[0]  # `address[0]`: the fields of the same address
    parts = {f.entry.key: f for f in memory if f.message == top.message and f.entry.path.startswith(at + ".")}
    pieces = [str(part.entry.value).lower() for part in parts.values()]
    for p in params_of(parameters):
        part = parts.get(fields[p.name][1]) if p.name in fields else None
        if part is not None and is_valid(part.entry.value, p.schema):
            filled.put(p.name, (part.entry.value, provenance(part)))
            if p.name in filled.missing:
                filled.missing.remove(p.name)
        elif p.name in filled.arguments and (p.name in fields or _piece(filled.arguments[p.name], pieces)):
            # a field the address lacks; or another parameter read as a piece of the address (its
            # zip as the customer's id): one value rarely fills two parameters
            del filled.arguments[p.name], filled.sources[p.name]
            if p.required:
                filled.missing.append(p.name)


def _piece(value: Any, pieces: list[str]) -> bool:
    """`value` is written as a piece of an address: one of its fields, or words around one."""
    written = str(value).lower()
    return any(piece == written or (len(piece) > 3 and piece in written) for piece in pieces)


def _unlike_the_ids(
    p: Param, value: Any, offered: tuple[list[Offer], frozenset[str]], memory: ValueMemory | None
) -> bool:
    """`p` is an id, tool results hold ids named as it or its description shows one (`examples.py`:
    "like INC-1042", "like jdoe"), and `value` is written like none of them. An id is a parameter
    named as one (`ticket_id`, `username`), one whose values in the results are all codes with
    digits (`asset_tag`: "LT-4403"; a person's name is none), or one whose description's example
    is a code ("like finance-share": "Lin Chen" is no group). For a value read
    in an earlier turn (`memory` given), every result's leaf named as `p` counts, also one the
    offers show at the call that sent it on (`get_customer`'s `customer_id`): the customer's name
    from their first message is no customer id after the look-up."""
    if not isinstance(value, str):
        return False
    found, described = offered  # the offers, and the id words the description names `p` by
    shapes = {shape(o.value) for o in found if _named_id(o) or _keyed(o, described)}
    if memory is not None:
        shapes |= {
            shape(f.entry.value)
            for f in memory
            if f.role == "tool" and isinstance(f.entry.value, str) and names(p, f.entry)
        }
    coded = bool(shapes) and all("9" in s for s in shapes)
    examples = code_shapes(p)  # "Ticket id, like INC-1042": how the schema writes one
    is_id = p.name_words & ID_WORDS or described or coded or examples
    shapes |= examples
    return bool(is_id) and bool(shapes) and shape(value) not in shapes


def _keyed(offer: Offer, words: frozenset[str]) -> bool:
    """A tool result's leaf under one of `words` (`users[0].username` for a username)."""
    return bool(words) and offer.found.role == "tool" and offer.found.entry.key.lower() in words


def _named_id(offer: Offer) -> bool:
    return offer.found.role == "tool" and "key_name" in offer.features and isinstance(offer.value, str)


def _scalar(
    p: Param, memory: ValueMemory, asked: tuple[Pointer | None, str], filled: Filled
) -> tuple[Any, Source] | None:
    """The best offer outside the last user turn (the filler read that turn, with the encoder)."""
    pointer, tool = asked
    taken = {value_key(v) for v in filled.arguments.values()}  # one value rarely fills two parameters
    found = [
        o
        for o in offers(p, memory, pointer.weights if pointer else None, tool)
        if o.found.message != memory.last_user and value_key(o.value) not in taken
    ]
    sure = _sure(found, _margin(pointer, tool, p))
    _record(filled, p, found, sure)
    return (found[0].value, provenance(found[0].found)) if sure else None


def _record(filled: Filled, p: Param, found: list[Offer], taken: bool) -> None:
    """The memory's best offers for `p` in the trace (the exemplar keeps their features, which
    one the engine took and which one the upstream's is: `learning/values.fit_pointer`'s cases,
    and the margin its pairs show the pointer sure at for `p`)."""
    if found:
        top = found[:RECORDED]
        filled.read[p.name] = Read(
            tuple(o.value for o in top),
            tuple({**o.features, "base": o.prior} for o in top),
            0 if taken else -1,
        )


def _sure(found: list[Offer], margin: float | None) -> bool:
    return bool(found) and sure([o.score for o in found[:2]], margin)


def sure(scores: list[float], margin: float | None) -> bool:
    """The best of the offers' scores (best first) is `margin` ahead of the next (`None`: the
    fixed rule, at least `SERVE` and `MARGIN` ahead), or, alone, at least `SERVE`."""
    if len(scores) < 2 or margin is None:
        return scores[0] >= SERVE and (len(scores) < 2 or scores[0] - scores[1] >= MARGIN)
    return scores[0] - scores[1] >= margin


def _margin(pointer: Pointer | None, tool: str, p: Param) -> float | None:
    """The margin the state's pairs showed its pointer sure at for this parameter, or None."""
    return pointer.margin(tool, p.name) if pointer else None


def provenance(found: Found) -> Source:
    """Where a copied value is: the message, its role, the leaf's path, the span if known."""
    entry = found.entry
    source: Source = {"source": "text", "message": found.message, "role": found.role, "text": entry.text}
    if entry.path:
        source["path"] = entry.path
    if entry.start >= 0:
        source["start"], source["end"] = entry.start, entry.end
    return source
