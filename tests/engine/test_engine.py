"""The engine on the real embedded models: choices, arguments, actions, enums, concurrency."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings

from shadowswitch.policy.models import Policy
from tests.support.arguments import schemas
from tests.support.engine_requests import EMAIL, FLIGHT, TOOLS, WEATHER, ask, tool
from tests.support.policies import ROOMY

pytestmark = pytest.mark.slow
POLICY = Policy(task_type="t", engine={**ROOMY, "min_confidence": 0.0, "min_margin": 0.0})


async def test_chooses_the_right_tool_with_valid_arguments(engine: Any) -> None:
    choice = await engine.decide(ask("What's the weather like in Paris right now?", TOOLS), POLICY)
    assert (choice.kind, choice.name) == ("tool", "get_weather")
    assert choice.arguments["city"] == "Paris"
    jsonschema.validate(choice.arguments, WEATHER["function"]["parameters"])
    assert set(choice.trace.timings_ms) >= {"candidates", "scoring", "arguments"}
    assert choice.trace.candidates[0].id == "get_weather" and 0 < choice.confidence <= 1


async def test_numbers_go_to_their_parameters(engine: Any) -> None:
    choice = await engine.decide(ask("Area of a triangle with base 12 and height 7?", TOOLS), POLICY)
    assert choice.name == "triangle_area"
    assert choice.arguments == {"base": 12, "height": 7}


async def test_a_value_is_not_taken_with_its_label_and_dates_go_to_date_parameters(engine: Any) -> None:
    mandates = tool(
        "list_mandates",
        "List a user's active mandates",
        {
            "user_id": {"type": "string", "description": "the user's id"},
            "start_date": {"type": "string", "description": "first day, YYYY-MM-DD"},
        },
        ["user_id"],
    )
    request = ask("List mandates of the user with ID U123456 since April 2nd, 2024", [mandates])
    choice = await engine.decide({**request, "tool_choice": "required"}, POLICY)
    assert choice.arguments == {"user_id": "U123456", "start_date": "2024-04-02"}


@pytest.mark.parametrize(
    "text",
    [
        "Patient file: 30 years, 100 kg, 170 cm.",
        "I'm a 30-year-old guy, weigh about 100 kilograms, and I'm 170 centimeters tall.",
    ],
)
async def test_numbers_are_told_apart_by_their_units(engine: Any, text: str) -> None:
    needs = tool(
        "daily_needs",
        "Daily calorie needs",
        {
            "weight": {"type": "integer", "description": "Body weight in kilograms."},
            "height": {"type": "integer", "description": "Height in centimeters."},
            "age": {"type": "integer", "description": "Age in years."},
        },
        ["weight", "height", "age"],
    )
    choice = await engine.decide({**ask(text, [needs]), "tool_choice": "required"}, POLICY)
    assert choice.arguments == {"weight": 100, "height": 170, "age": 30}


@pytest.mark.parametrize(
    ("text", "ip"),
    [
        ("This IP keeps showing up in our logs. It's 172.16.254.1. Where is it?", "172.16.254.1"),
        ("Could you track down the location of this IP? It's 10.0.0.7, and it keeps showing up.", "10.0.0.7"),
    ],
)
async def test_the_parameters_own_name_is_not_taken_as_its_value(engine: Any, text: str, ip: str) -> None:
    address = {"type": "string", "description": "The IP address to locate."}
    locate = tool("locate_ip", "Where an IP address is", {"ip_address": address}, ["ip_address"])
    choice = await engine.decide({**ask(text, [locate]), "tool_choice": "required"}, POLICY)
    assert choice.arguments == {"ip_address": ip}


async def test_each_value_goes_where_it_fits_best_overall(engine: Any) -> None:
    badge = tool(
        "get_violation_badge",
        "A project's policy violation badge",
        {
            "project_name": {"type": "string", "description": "The name of the project"},
            "project_version": {"type": "string", "description": "The version of the project"},
        },
        ["project_name", "project_version"],
    )
    text = "I want the violation badge for project bandana. The version is 5."
    choice = await engine.decide({**ask(text, [badge]), "tool_choice": "required"}, POLICY)
    assert choice.arguments == {"project_name": "bandana", "project_version": "5"}


@pytest.mark.parametrize(
    "text",
    [
        "Convert 500 Euros to Japanese Yen, please.",
        "What do I get for 500 when I change from euros to yen?",
        "I have 500 euros. How much is that in yen?",
    ],
)
async def test_a_named_currency_is_passed_as_its_code(engine: Any, text: str) -> None:
    convert = tool(
        "convert_currency",
        "Convert an amount between currencies",
        {
            "amount": {"type": "number", "description": "The amount to convert."},
            "from_currency": {"type": "string", "description": "The currency to convert from."},
            "to_currency": {"type": "string", "description": "The currency to convert to."},
        },
        ["amount", "from_currency", "to_currency"],
    )
    choice = await engine.decide({**ask(text, [convert]), "tool_choice": "required"}, POLICY)
    assert choice.arguments == {"amount": 500, "from_currency": "EUR", "to_currency": "JPY"}


async def test_small_talk_is_no_tool(engine: Any) -> None:
    choice = await engine.decide(ask("Tell me a joke about penguins", TOOLS), POLICY)
    assert choice.kind == "no_tool" and choice.fill_generative and choice.name is None


async def test_low_confidence_abstains_cleanly(engine: Any) -> None:
    strict = Policy(task_type="t", engine={**ROOMY, "min_confidence": 1.0})
    choice = await engine.decide(ask("hmm", TOOLS), strict)
    assert choice.abstain_reason and choice.abstain_reason.startswith("low_confidence")


async def test_empty_and_filtered_sets_abstain(engine: Any) -> None:
    choice = await engine.decide(ask("hi", [], tool_choice="required"), POLICY)
    assert choice.abstain_reason and choice.name is None
    forced = {"type": "function", "function": {"name": "nope"}}
    choice = await engine.decide(ask("hi", TOOLS, tool_choice=forced), POLICY)
    assert choice.abstain_reason


async def test_forced_tool_and_generative_arguments(engine: Any) -> None:
    forced = {"type": "function", "function": {"name": "send_email"}}
    choice = await engine.decide(ask("mail bob@example.com", TOOLS, tool_choice=forced), POLICY)
    assert choice.name == "send_email" and choice.arguments["to"] == "bob@example.com"
    generative = Policy(task_type="t", engine={**ROOMY, "arguments": "generative", "min_confidence": 0})
    choice = await engine.decide(ask("Fly me from Oslo to Rome", TOOLS), generative)
    assert choice.name == "book_flight" and choice.fill_generative and choice.arguments is None


async def test_two_level_choice_over_many_tools(engine: Any) -> None:
    fillers = [tool(f"report_{i}", f"Create quarterly report number {i}", {}, []) for i in range(12)]
    policy = Policy(task_type="t", engine={**ROOMY, "max_candidates": 4, "min_confidence": 0})
    request = ask("Send an email to ann@corp.com", [*fillers, EMAIL], tool_choice="required")
    choice = await engine.decide(request, policy)
    assert choice.name == "send_email"
    assert len(choice.trace.candidates) == 4  # the shortlist


async def test_actions_render_their_output(engine: Any) -> None:
    policy = Policy(
        task_type="t",
        engine={**ROOMY, "candidates": "actions", "min_confidence": 0, "min_margin": 0},
        actions=[
            {
                "id": "order_status",
                "description": "Look up where the user's order is",
                "examples": ["where is my order", "has my package shipped yet"],
                "output": {"action": "order_status", "action_input": {"order_id": "{order_id}"}},
                "slots": {"order_id": {"type": "string", "pattern": "[A-Z]{2}\\d{6}"}},
            },
            {
                "id": "final_answer",
                "description": "Answer the user directly",
                "examples": ["thanks, goodbye", "what can you help me with?"],
                "output": {"action": "Final Answer", "action_input": "{text}"},
                "fill": "generative",
            },
        ],
    )
    choice = await engine.decide(ask("Where is my order AB123456? It hasn't arrived"), policy)
    assert choice.kind == "action" and choice.name == "order_status"
    assert json.loads(choice.content) == {"action": "order_status", "action_input": {"order_id": "AB123456"}}
    choice = await engine.decide(ask("Thanks, that's all! Have a nice day"), policy)
    assert choice.name == "final_answer" and choice.fill_generative


async def test_schema_enum(engine: Any) -> None:
    schema = {
        "type": "object",
        "required": ["sentiment"],
        "properties": {"sentiment": {"type": "string", "enum": ["positive", "negative"]}},
    }
    fmt = {"type": "json_schema", "json_schema": {"name": "s", "schema": schema}}
    policy = Policy(task_type="t", engine={**ROOMY, "candidates": "schema_enum", "min_confidence": 0})
    choice = await engine.decide(ask("This is terrible, I hate it", response_format=fmt), policy)
    assert choice.kind == "enum" and choice.name == "negative"
    jsonschema.validate(json.loads(choice.content), schema)


async def test_sixteen_parallel_calls(engine: Any) -> None:
    questions = [
        ("What's the weather in Tokyo?", "get_weather"),
        ("Book a flight from Lisbon to Madrid", "book_flight"),
        ("Triangle with base 3 and height 4: what is its area?", "triangle_area"),
        ("Email carol@example.org about the meeting", "send_email"),
    ] * 4
    choices = await asyncio.gather(*[engine.decide(ask(q, TOOLS), POLICY) for q, _ in questions])
    assert [c.name for c in choices] == [name for _, name in questions]


async def test_repeated_call_abstains(engine: Any) -> None:
    call = {
        "id": "1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": json.dumps({"city": "Paris"})},
    }
    messages = [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "1", "content": "sunny"},
        {"role": "user", "content": "Weather in Paris?"},
    ]
    choice = await engine.decide({"messages": messages, "tools": [WEATHER, FLIGHT]}, POLICY)
    assert choice.name == "get_weather"
    assert choice.abstain_reason and "repeated_call" in choice.abstain_reason


@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(schemas(patterns=True))
def test_every_call_validates_with_the_model(engine: Any, schema: dict[str, Any]) -> None:
    request = ask("Book 3 seats to Paris, code AB123, on 2024-05-01", [tool("t", "d", {}, [])])
    request["tools"][0]["function"]["parameters"] = schema
    forced = {"type": "function", "function": {"name": "t"}}
    choice = engine.decide_sync({**request, "tool_choice": forced}, POLICY)
    if choice.abstain_reason is None:
        jsonschema.validate(choice.arguments, schema)
    else:  # a required value not in the text, or the decoder out of budget on a deep pattern
        assert choice.abstain_reason.startswith(("missing_value:", "invalid_arguments"))


async def test_the_hybrid_scorer_asks_the_lm_about_close_text_values(engine: Any, monkeypatch: Any) -> None:
    term = {"term": {"type": "string", "description": "The slang word to look up"}}
    slang = tool("define_slang", "Look up what a slang word means", term, ["term"])
    text = 'My students keep saying "rizz". What does "rizz" mean according to Merriam Webster?'
    request = {**ask(text, [slang]), "tool_choice": "required"}
    asked: list[tuple[str, list[Any], list[float]]] = []
    real = engine.engine.rerank

    def spy(tool: Any, text: str, param: str, values: list[Any]) -> list[float]:
        scores = real(tool, text, param, values)
        asked.append((param, values, scores))
        return scores

    monkeypatch.setattr(engine.engine, "rerank", spy)
    fast = await engine.decide(
        request,
        POLICY.model_copy(update={"engine": POLICY.engine.model_copy(update={"scorer": "embedding"})}),
    )
    assert asked == []  # the encoder-only scorer never waits for the LM
    both = await engine.decide(request, POLICY)  # hybrid
    assert [param for param, _, _ in asked] == ["term"]
    assert set(asked[0][1]) >= {"rizz", "Merriam Webster"}
    assert all(-100 < s < 0 for s in asked[0][2])  # log-probabilities of each value, summed
    for choice in (fast, both):
        jsonschema.validate(choice.arguments, slang["function"]["parameters"])
