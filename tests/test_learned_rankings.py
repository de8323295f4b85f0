"""Learned value rankings (`learning/values.py`): pure logic, on exemplar arguments as
`exemplar._arguments` writes them (the offered values' features, the engine's pick, the
upstream's), never on values."""

from __future__ import annotations

import json
import math
from typing import Any

from shadowswitch.engines.local.arguments.grounding import Read
from shadowswitch.engines.local.learned_state import (
    POINTER,
    SURE,
    Pointer,
    Ranked,
    Transform,
    constant_values,
    pointer_of,
    rankings_of,
    transforms_of,
)
from shadowswitch.learning.exemplar import offered_entry
from shadowswitch.learning.rules import learned_constants
from shadowswitch.learning.transforms import explained
from shadowswitch.learning.values import fit_rankings, pointed_call, reranked

TOOL, PARAM = "lookup_employee", "name"


def argument(picked: int, match: int, transforms: list[str] | None = None) -> dict[str, Any]:
    """A full name (the filler's favourite) and a surname offered; the engine picked one, the
    upstream wrote `match` (-1: neither)."""
    full = {"kind:str:name": 1.0, "words:str": round(math.log1p(2), 4), "similarity": 0.16, "base": 2.35}
    surname = {"kind:str:name": 1.0, "words:str": round(math.log1p(1), 4), "similarity": 0.15, "base": 2.30}
    entry: dict[str, Any] = {"type": "str", "in_text": True, "local": True, "agrees": picked == match}
    entry["offered"] = {"features": [full, surname], "picked": picked, "match": match}
    entry["transforms"] = transforms if transforms is not None else (["identity"] if picked == match else [])
    return entry


def calls(entries: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    return [(TOOL, {PARAM: e}) for e in entries]


def test_a_consistent_preference_is_learned_and_re_ranks_the_engines_pick() -> None:
    # the engine fills the full name 8 times in 10; the upstream writes the surname every time
    entries = [argument(0, 1)] * 8 + [argument(1, 1)] * 2
    rankings = fit_rankings(calls(entries))
    weights = rankings[TOOL][PARAM]
    assert weights["words:str"] < 0, weights  # fewer words: the surname
    fixed = reranked(argument(0, 1), weights)
    assert fixed["agrees"] is True and fixed["transforms"] == ["identity"], fixed
    assert reranked(argument(1, 1), weights)["agrees"] is True  # already right: unchanged


def test_noise_too_few_pairs_or_values_never_offered_learn_nothing() -> None:
    alternating = [argument(0, i % 2) for i in range(12)]  # the upstream takes either, half and half
    assert fit_rankings(calls(alternating)) == {}
    assert fit_rankings(calls([argument(0, 1)] * 4)) == {}  # below the evidence bar
    assert fit_rankings(calls([argument(0, -1)] * 12)) == {}  # the upstream's value was never offered
    assert fit_rankings(calls([argument(1, 1)] * 12)) == {}  # the engine already picks it


def test_a_ranking_is_a_learned_value_with_a_transform_inside() -> None:
    # the upstream writes the surname upper-cased: the ranking picks it, then `upper` rewrites it
    entries = [argument(0, 1, transforms=[])] * 8 + [argument(1, 1, transforms=["upper"])] * 2
    for entry in entries[:8]:
        entry["agrees"] = False
    learned = learned_constants(calls(entries))[TOOL]
    assert isinstance(learned[PARAM], Ranked), learned
    assert rankings_of(learned).keys() == {PARAM}
    assert constant_values(learned) == {} and transforms_of(learned) == {}  # "identity" after re-ranking
    plain = {PARAM: Ranked((("words:str", -5.0),), Transform("upper"))}
    assert transforms_of(plain) == {PARAM: "upper"} and constant_values(plain) == {}
    # judged as the ranking fills it: the surname, as read, agrees only where no transform is needed
    assert explained(argument(0, 1), {PARAM: Ranked((("words:str", -5.0),))}, PARAM)
    assert not explained(argument(0, 1), {}, PARAM)


def test_an_exemplar_keeps_the_offered_values_features_never_the_values() -> None:
    read = Read(
        ("Omar Haddad", "Haddad"), ({"base": 2.4, "words:str": 1.0986}, {"base": 2.3, "words:str": 0.0}), 0
    )
    found = offered_entry(read, ("Omar Haddad",), "Haddad")
    assert found == {"features": [{"base": 2.4, "words:str": 1.0986}, {"base": 2.3}], "picked": 0, "match": 1}
    assert "Haddad" not in json.dumps(found)
    assert offered_entry(read, ("Omar",), "Haddad")["picked"] == -1  # the value filled came from elsewhere
    assert offered_entry(read, None, "Nobody")["match"] == -1
    alone = Read(("Haddad",), ({"base": 1.0},), 0)
    assert offered_entry(alone, ("Haddad",), "Haddad") is None  # one value: nothing to rank


def walk(match: int, picked: int = -1) -> dict[str, Any]:
    """An order id the engine left missing: a customer's three orders offered from the memory,
    alike but for the first of the list (`list_first`); the upstream took `match`."""
    order = {"memory": 1.0, "src:tool": 1.0, "key_name": 1.0, "in_list": 1.0, "base": 9.3}
    features = [{**order, "list_first": 1.0, "base": 8.6}, order, order]
    offered = {"features": features, "picked": picked, "match": match}
    entry = {"type": "str", "in_text": True, "local": picked >= 0, "agrees": False, "offered": offered}
    return {"order_id": entry}


def test_the_learned_pointer_rejudges_what_the_memory_offered() -> None:
    """The pairs a state is judged on are filled as its learned pointer fills them at serving time:
    an id left missing becomes a call (agreeing, or not) once the pointer is sure of it; unsure, it
    stays missing; a pair the pointer leaves as it was recorded keeps its status."""
    sure = Pointer({"list_first": 4.0})  # the first of the list, 3.3 ahead of the others
    status, args = pointed_call("missing", walk(0), sure, "get_order")
    assert status == "agree" and args is not None and args["order_id"]["offered"]["picked"] == 0
    assert pointed_call("missing", walk(1), sure, "get_order")[0] == "differ"
    unsure = Pointer({"list_first": 1.0})  # 0.3 ahead: unsure at the fixed margin ...
    assert pointed_call("missing", walk(0), unsure, "get_order")[0] == "missing"
    learned = Pointer({"list_first": 1.0}, {"get_order.order_id": 0.0})  # ... sure where pairs showed it
    assert pointed_call("missing", walk(0), learned, "get_order")[0] == "agree"
    assert pointed_call("missing", walk(0), learned, "cancel_order")[0] == "missing"  # not this tool's
    assert pointed_call("missing", walk(0), None, "get_order")[0] == "missing"  # no pointer learned
    assert pointed_call("agree", walk(0, picked=0), sure, "get_order") == ("agree", walk(0, picked=0))
    against = Pointer({"list_first": -4.0})
    assert pointed_call("agree", walk(0, picked=0), against, "get_order")[0] == "missing"
    assert pointed_call("unknown", walk(0), sure, "get_order")[0] == "unknown"  # not its to judge
    pairs = [("get_order", walk(0)), ("get_order", walk(0))]
    assert learned_constants(pairs) == {}  # too few to learn a pointer: nothing re-judged


def test_the_pointer_is_sure_at_a_smaller_margin_only_where_its_pairs_show_it_right() -> None:
    """Cross-validated per tool and parameter: the first of a walk's list is the upstream's value
    nearly every time, so `get_order`'s id is served at a margin the fixed rule calls unsure; a
    parameter whose first offer is often wrong keeps the fixed rule, and one the memory never
    offered the upstream's value does too."""
    alike = {"memory": 1.0, "src:tool": 1.0, "key_name": 1.0, "base": 2.0}
    first = {**alike, "list_first": 1.0, "base": 1.0}  # the prior puts another first

    def case(match: int) -> dict[str, Any]:
        offered = {"features": [first, alike, alike], "picked": -1, "match": match}
        return {"type": "str", "in_text": True, "local": False, "agrees": False, "offered": offered}

    pairs = [("get_order", {"order_id": case(0)}) for _ in range(40)]
    pairs[7] = ("get_order", {"order_id": case(-1)})  # the upstream mistyped one
    pairs += [("report_damaged_item", {"line_id": case(i % 3)}) for i in range(30)]
    pointer = pointer_of(learned_constants(pairs))
    assert pointer is not None and pointer.weights["list_first"] > 0
    assert pointer.margin("get_order", "order_id") is not None  # 39 of 40 right, cross-validated
    assert pointer.margin("report_damaged_item", "line_id") is None  # a third right: the fixed rule
    assert set(learned_constants(pairs)[POINTER]) == {POINTER, SURE}
