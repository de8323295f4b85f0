"""The engine never invents an argument value: grounding and provenance, without a model."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shadowswitch.engines.local.arguments.grounding import grounded
from shadowswitch.engines.local.choice.candidates import action_candidate
from shadowswitch.engines.local.conversation import value_turn
from shadowswitch.engines.local.outputs import action_choice
from shadowswitch.policy.models import Action
from shadowswitch.request import ChatView
from tests.support.arguments import FILLER, TEXTS, schemas
from tests.support.provenance import assert_grounded


def obj(required: list[str], **props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required}


def test_a_required_value_the_text_does_not_give_is_missing_not_made_up() -> None:
    hotel = obj(["city", "nights"], city={"type": "string"}, nights={"type": "integer"})
    filled = FILLER.fill(hotel, "")
    assert filled.arguments == {} and filled.missing == ["city", "nights"]
    assert filled.abstain_reason == "missing_value:city"
    assert FILLER.fill(hotel, "in Lisbon").abstain_reason == "missing_value:nights"


def test_a_required_flag_not_named_is_its_default_or_missing_never_false() -> None:
    assert FILLER.fill(obj(["fast"], fast={"type": "boolean"}), "hello").missing == ["fast"]
    filled = FILLER.fill(obj(["fast"], fast={"type": "boolean", "default": True}), "hello")
    assert filled.arguments == {"fast": True} and filled.sources["fast"] == {"source": "default"}
    said = FILLER.fill(obj(["fast"], fast={"type": "boolean"}), "not fast please")
    assert said.arguments == {"fast": False}
    assert said.sources["fast"] == {"source": "text", "start": 4, "end": 8, "text": "fast"}


def test_a_required_enum_is_named_or_its_default_or_missing() -> None:
    unit = {"type": "string", "enum": ["celsius", "fahrenheit"]}
    named = FILLER.fill(obj(["unit"], unit=unit), "weather in Celsius")
    assert named.arguments == {"unit": "celsius"} and named.sources["unit"]["text"] == "Celsius"
    assert FILLER.fill(obj(["unit"], unit=unit), "weather please").missing == ["unit"]
    with_default = FILLER.fill(obj(["unit"], unit={**unit, "default": "fahrenheit"}), "weather please")
    assert with_default.arguments == {"unit": "fahrenheit"}
    assert with_default.sources["unit"] == {"source": "default"}


def test_an_enum_meant_by_a_phrase_is_an_enum_choice() -> None:
    def similarity(labels: list[str], phrases: list[str]) -> list[list[float]]:
        return [[0.9 if (label, p) == ("cold", "freezing") else 0.1 for p in phrases] for label in labels]

    filler = type(FILLER)(similarity, FILLER.cal)
    text = "It is freezing outside"
    filled = filler.fill(obj(["mood"], mood={"enum": ["warm", "cold"]}), text)
    assert filled.arguments == {"mood": "cold"}
    assert filled.sources["mood"] == {
        "source": "enum_choice",
        "start": 6,
        "end": 14,
        "text": "freezing",
        "similarity": 0.9,
    }


def test_a_piece_of_an_options_own_words_is_no_paraphrase_of_it() -> None:
    """ "order" is close to "ordered by mistake" for the encoder (0.71 in the shop's cancellations,
    where the customer no longer needed the order): a piece of an option's words names part of it
    and means nothing of which; other words that mean it still choose it."""

    def similarity(labels: list[str], phrases: list[str]) -> list[list[float]]:
        close = {("ordered by mistake", "order"): 0.71, ("ordered by mistake", "wrong item"): 0.8}
        return [[close.get((label, p), 0.1) for p in phrases] for label in labels]

    filler = type(FILLER)(similarity, FILLER.cal)
    reason = obj(["reason"], reason={"enum": ["no_longer_needed", "ordered_by_mistake"]})
    assert filler.fill(reason, "Please cancel that order").missing == ["reason"]
    assert filler.fill(reason, "I got the 'wrong item'").arguments == {"reason": "ordered_by_mistake"}


def test_a_nested_required_value_missing_is_named_with_its_path() -> None:
    order = obj(["order_id"], order_id={"type": "string", "pattern": "^[A-Z]{2}-\\d+$"})
    filled = FILLER.fill(obj(["order"], order=order), "change my order please")
    assert filled.missing == ["order.order_id"]
    empty = FILLER.fill(obj(["filters"], filters=obj([], color={"type": "string"})), "")
    assert empty.missing == ["filters"]  # {} says nothing the text said


def test_a_nested_object_reads_as_the_stretch_of_text_its_parts_came_from() -> None:
    order = obj(["order_id"], order_id={"type": "string"}, quantity={"type": "integer"})
    text = "Change order AB-1234 to quantity 3"
    filled = FILLER.fill(obj(["order"], order=order), text)
    assert filled.arguments == {"order": {"order_id": "AB-1234", "quantity": 3}}
    source = filled.sources["order"]
    assert (source["source"], source["text"]) == ("text", "AB-1234 to quantity 3")
    assert set(source["properties"]) == {"order_id", "quantity"}


def test_grounded_means_every_leaf_is_in_the_text() -> None:
    text = "Sort 3, 1 and 2.5 for Ann; tags 'red' and 'blue'"
    assert grounded([3, 1, 2.5], text) and grounded(["Red", "BLUE"], text)
    assert grounded({"who": "ann", "n": [3]}, text)
    assert not grounded([3, 4], text) and not grounded(["green"], text)
    assert not grounded([], text) and not grounded({}, text) and not grounded("", text)
    assert not grounded([True], text) and not grounded(None, text)


LEAVES = st.recursive(
    st.one_of(st.integers(-5, 50), st.sampled_from(["Paris", "AB123", "zzz", "", "hello"]), st.booleans()),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from("abc"), inner, max_size=2)
    ),
    max_leaves=5,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schemas(patterns=True), TEXTS, LEAVES)
def test_a_decoded_value_is_kept_only_when_the_text_holds_it(
    schema: dict[str, Any], text: str, made: Any
) -> None:
    """A scripted decoder writes whatever it likes; only what the text holds gets through."""
    decoded: list[Any] = []

    def decode(sub: dict[str, Any], name: str, filled: dict[str, Any]) -> Any:
        decoded.append(made)
        return made

    filled = FILLER.fill(schema, text, decode)
    assert_grounded(filled.arguments, filled.sources, schema, text)
    kept = [n for n, s in filled.sources.items() if s["source"] == "decoded"]
    assert not kept or grounded(made, text)


def test_a_required_slot_the_text_does_not_give_is_missing() -> None:
    action = Action(
        id="order_status",
        description="Where the order is",
        output={"action": "order_status", "action_input": {"order_id": "{order_id}"}},
        slots={"order_id": {"type": "string", "pattern": "[A-Z]{2}\\d{6}"}},
    )
    request = {
        "messages": [
            {"role": "user", "content": "Where is my order AB123456?"},
            {"role": "assistant", "content": "Let me check."},
            {"role": "user", "content": "  any news?"},
        ]
    }
    choice = action_choice(action_candidate(action), ChatView.parse(request), FILLER)
    assert choice.abstain_reason is None and choice.arguments == {"order_id": "AB123456"}
    assert choice.sources["order_id"] == {
        "source": "text",
        "start": 18,
        "end": 26,
        "text": "AB123456",
        "message": 0,
    }
    request["messages"][0]["content"] = "Where is my order?"
    choice = action_choice(action_candidate(action), ChatView.parse(request), FILLER)
    assert choice.abstain_reason == "missing_value:order_id" and choice.content is None


def test_values_are_read_from_the_last_user_turn_with_its_index() -> None:
    messages = [
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": [{"type": "text", "text": "second"}]},
        {"role": "tool", "content": "x"},
    ]
    assert value_turn(ChatView.parse({"messages": messages})) == (2, "second")
    only_system = {"messages": [{"role": "system", "content": "only this"}]}
    assert value_turn(ChatView.parse(only_system)) == (0, "only this")
    assert value_turn(ChatView.parse({"messages": [{"role": "assistant", "content": None}]})) == (None, "")
