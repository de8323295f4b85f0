"""The engine on the real models never serves a value the conversation does not give."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shadowswitch.policy.models import Policy
from tests.support.arguments import TEXTS, schemas
from tests.support.engine_requests import ask, tool
from tests.support.policies import ROOMY
from tests.support.provenance import assert_grounded

pytestmark = pytest.mark.slow
POLICY = Policy(task_type="t", engine={**ROOMY, "min_confidence": 0.0, "min_margin": 0.0})
HOTEL = tool(
    "book_hotel",
    "Book a hotel room in a city",
    {
        "city": {"type": "string", "description": "The city to stay in"},
        "nights": {"type": "integer", "description": "How many nights"},
    },
    ["city", "nights"],
)


async def test_a_city_not_mentioned_makes_the_engine_abstain(engine: Any) -> None:
    request = {**ask("Book me a hotel room for 2 nights, please", [HOTEL]), "tool_choice": "required"}
    choice = await engine.decide(request, POLICY)
    assert choice.name == "book_hotel"
    assert choice.abstain_reason == "missing_value:city"
    assert "city" not in (choice.arguments or {})


async def test_a_local_answer_says_where_each_value_comes_from(engine: Any) -> None:
    request = {**ask("Book me a hotel room in Lisbon for 2 nights", [HOTEL]), "tool_choice": "required"}
    choice = await engine.decide(request, POLICY)
    assert choice.abstain_reason is None
    assert choice.arguments == {"city": "Lisbon", "nights": 2}
    assert choice.sources == {
        "city": {"source": "text", "message": 0, "start": 24, "end": 30, "text": "Lisbon"},
        "nights": {"source": "text", "message": 0, "start": 35, "end": 36, "text": "2"},
    }


TURNS = st.one_of(TEXTS, st.text(max_size=40))


@st.composite
def conversations(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Earlier user and assistant turns, then the user's last one."""
    earlier = draw(st.lists(st.tuples(st.sampled_from(["user", "assistant"]), TURNS), max_size=3))
    messages = [{"role": role, "content": text} for role, text in earlier]
    return [*messages, {"role": "user", "content": draw(TURNS)}]


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(schemas(patterns=True), conversations())
def test_every_local_answer_is_valid_and_grounded(
    engine: Any, schema: dict[str, Any], messages: list[dict[str, Any]]
) -> None:
    request = {"messages": messages, "tools": [tool("t", "d", {}, [])]}
    request["tools"][0]["function"]["parameters"] = schema
    forced = {"type": "function", "function": {"name": "t"}}
    choice = engine.decide_sync({**request, "tool_choice": forced}, POLICY)
    if choice.abstain_reason is None:
        jsonschema.validate(choice.arguments, schema)
        assert_grounded(choice.arguments, choice.sources, schema, messages)
    else:
        assert choice.abstain_reason.startswith(("missing_value:", "invalid_arguments"))
