"""Learned transforms, part by part: each rewrite of the library, which rewrites explain a pair,
the selection's evidence bar, the exemplar that keeps only names, the replay's judgement, and
the served state applying one to a grounded value only."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest

from shadowswitch.engines.base import Choice, ChoiceTrace
from shadowswitch.engines.local.arguments.grounding import Filled
from shadowswitch.engines.local.arguments.learned import learned_values
from shadowswitch.engines.local.arguments.rewrites import date_patterns, explaining, rewrite
from shadowswitch.engines.local.knowledge import Knowledge
from shadowswitch.engines.local.learned_state import Transform
from shadowswitch.learning.agreement import call_agreed
from shadowswitch.learning.exemplar import build_exemplar
from shadowswitch.learning.rules import learned_constants
from shadowswitch.learning.transforms import learned_transforms, select
from shadowswitch.request import ChatView


@pytest.fixture(scope="module")
def places() -> Knowledge:
    return Knowledge.load(["places"])


def test_each_rewrite_maps_a_value_or_gives_nothing(places: Knowledge) -> None:
    region = places.region_of
    assert rewrite("region", "Austin", region) == "Austin, TX"
    assert rewrite("region", "Paris", region) == "Paris, France"
    assert rewrite("region", "Qwertyville", region) is None  # not in the table: nothing, never a guess
    assert rewrite("region", "Austin", None) is None  # no table loaded
    assert rewrite("city", "Austin, TX") == "Austin" and rewrite("city", "Austin") is None
    assert rewrite("lower", "Oslo") == "oslo" and rewrite("upper", "usd") == "USD"
    assert rewrite("title", "new york") == "New York" and rewrite("lower", 3) is None
    assert rewrite("string", 5) == "5" and rewrite("string", 2.5) == "2.5" and rewrite("string", True) is None
    assert (
        rewrite("number", "12") == 12 and rewrite("number", "1.5") == 1.5 and rewrite("number", "x") is None
    )
    assert (
        rewrite("list", "a") == ["a"]
        and rewrite("item", ["a"]) == "a"
        and rewrite("item", ["a", "b"]) is None
    )
    assert rewrite("suffix: km", 5) == "5 km" and rewrite("prefix:$", "20") == "$20"
    assert rewrite("date:%m/%d/%Y", "2026-12-01") == "12/01/2026"
    assert rewrite("date:%B %-d, %Y", "2026-03-05") == "March 5, 2026"
    assert rewrite("date:%m/%d/%Y", "next Friday") is None  # not a date the extractors wrote
    assert rewrite("date:%H:%M", "2026-03-05") is None  # a directive it does not know
    assert rewrite("no such rewrite", "x") is None


def test_the_rewrites_that_explain_a_pair_are_named_not_kept(places: Knowledge) -> None:
    region = places.region_of
    assert explaining("Austin", "Austin, TX", region) == ["region"]
    assert explaining("Austin", "Austin, CA", region) == []  # the table says TX: no rewrite explains it
    assert explaining("2026-03-05", "03/05/2026") == ["date:%m/%d/%Y"]
    assert explaining("2026-03-03", "03/03/2026") == ["date:%m/%d/%Y", "date:%d/%m/%Y"]  # both readings
    assert explaining("2026-03-05", "03/05/2026 10:30") == []  # a time is no part of a date
    assert explaining(5, "5 km") == ["suffix: km"]
    assert explaining("Austin", "Austin, CA") == []  # a region is the tables' job, not an affix
    assert explaining("Paris", "Paris")[0] == "identity"
    assert date_patterns(__import__("datetime").date(2026, 3, 5), "2026") == []  # no day, no month


def test_a_transform_is_selected_only_on_consistent_evidence() -> None:
    assert select([["region"]] * 5) == "region"
    assert select([["region"]] * 4) is None  # fewer than 5 exemplars
    assert select([["region"]] * 19 + [[]]) == "region"  # 95% of 20
    assert select([["region"]] * 9 + [[]]) is None  # 90%: an inconsistent rewrite is not learned
    assert select([["identity", "lower"]] * 5) is None  # the value as read is already right
    assert select([["date:%m/%d/%Y", "date:%d/%m/%Y"]] + [["date:%m/%d/%Y"]] * 4) == "date:%m/%d/%Y"
    assert select([["lower", "title"]] * 5) == "lower"  # a tie: the library's earlier rewrite


def entry(local: bool, agrees: bool, transforms: list[str] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "str", "in_text": False, "local": local, "agrees": agrees}
    return out if transforms is None else {**out, "transforms": transforms}


def test_the_replay_counts_a_call_the_learned_transform_fixes() -> None:
    rewritten = [("weather", {"city": entry(True, False, ["region"])}) for _ in range(5)]
    learned = learned_constants(rewritten)
    assert learned == {"weather": {"city": Transform("region")}}
    assert call_agreed("weather", "weather", "differ", rewritten[0][1], learned) == 1.0
    assert call_agreed("weather", "weather", "differ", rewritten[0][1], {}) == 0.0
    as_read = {"city": entry(True, True, ["identity"])}  # the upstream wrote it as read, here
    assert call_agreed("weather", "weather", "agree", as_read, learned) == 0.0  # served rewritten: wrong
    left_out = {"city": entry(False, False)}
    assert call_agreed("weather", "weather", "differ", left_out, learned) == 0.0  # nothing to rewrite
    assert math.isnan(call_agreed("weather", "other", "differ", rewritten[0][1], learned))
    mixed = [("weather", {"city": entry(True, False, ["region"] if i % 2 else [])}) for i in range(10)]
    assert learned_transforms(mixed) == {}


SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
    "required": ["city"],
}


def test_the_served_state_rewrites_a_grounded_value_only(places: Knowledge) -> None:
    region = places.region_of
    learned: dict[str, Any] = {"city": Transform("region")}
    filled = Filled()
    filled.put("city", ("Austin", {"source": "text", "start": 11, "end": 17, "text": "Austin"}))
    learned_values(filled, SCHEMA, learned, 3, region)
    assert filled.arguments == {"city": "Austin, TX"} and filled.abstain_reason is None
    assert filled.sources["city"] == {
        "source": "learned_transform",
        "transform": "region",
        "state_version": 3,
        "from": "Austin",
        "start": 11,
        "end": 17,
        "text": "Austin",
    }
    unknown = Filled()
    unknown.put("city", ("Qwertyville", {"source": "text", "start": 0, "end": 11, "text": "Qwertyville"}))
    learned_values(unknown, SCHEMA, learned, 3, region)
    assert unknown.arguments == {} and unknown.abstain_reason == "missing_value:city"
    default = Filled()
    default.put("city", ("Austin", {"source": "default"}))  # not read from the text: left as it is
    learned_values(default, SCHEMA, learned, 3, region)
    assert default.sources["city"] == {"source": "default"}
    empty = Filled(missing=["city"])  # nothing in the text: still missing, never a value made up
    learned_values(empty, SCHEMA, learned, 3, region)
    assert empty.arguments == {} and empty.abstain_reason == "missing_value:city"


def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    fn = {"name": name, "arguments": json.dumps(arguments)}
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c", "type": "function", "function": fn}],
    }


def test_an_exemplar_keeps_the_rewrite_names_not_the_text(places: Knowledge) -> None:
    tools = [{"type": "function", "function": {"name": "weather", "parameters": SCHEMA}}]
    text = "What's the weather in Austin for 3 days?"
    request = ChatView.parse({"model": "m", "messages": [{"role": "user", "content": text}], "tools": tools})
    trace = ChoiceTrace(
        vector=np.ones(4, dtype=np.float32).tobytes(), encoder="e", zero_shot={"weather": 0.9}
    )
    source = {"source": "text", "start": 22, "end": 28, "text": "Austin"}
    choice = Choice(
        "tool", "weather", arguments={"city": "Austin", "days": 3}, sources={"city": source}, trace=trace
    )
    row = build_exemplar(
        "t",
        "d",
        request,
        choice,
        call("weather", {"city": "Austin, TX", "days": 3}),
        None,
        None,
        None,
        places.region_of,
    )
    assert row is not None and row.args_status == "differ"
    assert row.arguments["city"] == {
        "type": "str",
        "in_text": False,
        "local": True,
        "agrees": False,
        "transforms": ["region"],
        "origin": "text",  # where the value was read, never the value (no message index given)
    }
    assert "Austin" not in json.dumps(row.arguments)  # neither the value read nor the upstream's
    assert (
        row.arguments["days"]["agrees"] is True and "transforms" not in row.arguments["days"]
    )  # no source kept
    extra = build_exemplar(
        "t", "d", request, choice, call("weather", {"city": "Austin, TX"}), None, None, None, places.region_of
    )
    assert extra is not None and "agrees" not in extra.arguments["city"]  # the engine set `days` too


def test_a_served_transform_keeps_teaching_from_the_value_read(places: Knowledge) -> None:
    """A call the served state rewrote is recorded by the value it read (`from`), so the next state
    learns the same transform; once the upstream stops rewriting, the exemplars say identity."""
    tools = [{"type": "function", "function": {"name": "weather", "parameters": SCHEMA}}]
    text = "Is it raining in Denver?"
    request = ChatView.parse({"model": "m", "messages": [{"role": "user", "content": text}], "tools": tools})
    trace = ChoiceTrace(
        vector=np.ones(4, dtype=np.float32).tobytes(), encoder="e", zero_shot={"weather": 0.9}
    )
    source = {"source": "learned_transform", "transform": "region", "state_version": 2, "from": "Denver"}
    served = Choice(
        "tool", "weather", arguments={"city": "Denver, CO"}, sources={"city": source}, trace=trace
    )
    rows = [
        build_exemplar("t", "d", request, served, call("weather", {"city": city}), region_of=places.region_of)
        for city in ("Denver, CO", "Denver")
    ]
    still, stopped = (row.arguments["city"] if row and row.arguments else {} for row in rows)
    assert still["transforms"] == ["region"] and still["agrees"] is True
    assert stopped["transforms"][0] == "identity" and stopped["agrees"] is False
    learned = {"weather": {"city": Transform("region")}}
    assert call_agreed("weather", "weather", "agree", still, learned) == 1.0
    assert call_agreed("weather", "weather", "differ", stopped, learned) == 0.0
    assert learned_transforms([("weather", stopped)] * 5) == {}  # the next state drops it
