"""A person's full name split into a tool's first-name and last-name parameters (`name_parts.py`)."""

from __future__ import annotations

from typing import Any

from shadowswitch.engines.local.arguments.grounding import Filled
from shadowswitch.engines.local.arguments.name_parts import split_name
from shadowswitch.engines.local.choice.candidates import build_candidates
from shadowswitch.policy.models import Policy
from shadowswitch.request import ChatView
from tests.support.local_path import policy

BY_NAME = {
    "type": "object",
    "properties": {
        "first_name": {"type": "string", "description": "The customer's first name"},
        "last_name": {"type": "string", "description": "The customer's last name"},
        "zip": {"type": "string", "description": "The zip code on the account"},
    },
    "required": ["first_name", "last_name", "zip"],
}


def test_a_full_name_in_one_part_is_split_with_its_spans() -> None:
    text = "I'm Cyrus Nilsen, zip code 87576."
    filled = Filled(
        arguments={"first_name": "Cyrus Nilsen", "last_name": "LK838086", "zip": "87576"},
        sources={
            "first_name": {"source": "text", "start": 4, "end": 16, "text": "Cyrus Nilsen", "message": 3}
        },
    )
    split_name(filled, BY_NAME)
    assert filled.arguments == {"first_name": "Cyrus", "last_name": "Nilsen", "zip": "87576"}
    for name in ("first_name", "last_name"):
        source = filled.sources[name]
        assert text[source["start"] : source["end"]] == filled.arguments[name] and source["message"] == 3


def test_two_name_words_side_by_side_in_the_wrong_parameters_are_put_in_order() -> None:
    """ "I'm Delia Walsh": the first word is the first name, whichever way the filler gave them."""
    delia = {"source": "text", "start": 4, "end": 9, "text": "Delia", "message": 3}
    walsh = {"source": "text", "start": 10, "end": 15, "text": "Walsh", "message": 3}
    filled = Filled(
        arguments={"first_name": "Walsh", "last_name": "Delia", "zip": "94092"},
        sources={"first_name": walsh, "last_name": delia},
    )
    split_name(filled, BY_NAME)
    assert filled.arguments == {"first_name": "Delia", "last_name": "Walsh", "zip": "94092"}
    assert filled.sources["first_name"] == delia and filled.sources["last_name"] == walsh
    apart = Filled(  # not side by side ("Walsh ... Delia"): not read as one name, left as given
        arguments={"first_name": "Walsh", "last_name": "Delia"},
        sources={"first_name": {**walsh, "start": 20, "end": 25}, "last_name": delia},
    )
    split_name(apart, BY_NAME)
    assert apart.arguments == {"first_name": "Walsh", "last_name": "Delia"}


def test_a_single_word_or_a_tool_without_both_parts_is_left_alone() -> None:
    one = Filled(arguments={"first_name": "Cyrus"}, sources={"first_name": {"start": 4, "end": 9}})
    split_name(one, BY_NAME)
    assert one.arguments == {"first_name": "Cyrus"}
    only_first = {"type": "object", "properties": {"first_name": {"type": "string"}}}
    whole = Filled(arguments={"first_name": "Cyrus Nilsen"}, sources={"first_name": {"start": 4, "end": 16}})
    split_name(whole, only_first)
    assert whole.arguments == {"first_name": "Cyrus Nilsen"}


def test_the_engine_looks_a_customer_up_by_first_and_last_name(local_engine: Any) -> None:
    """What the engine would send the look-up (as learning asks it of the upstream's tool): the
    name's parts, not the whole name and the order id."""
    tool = {"type": "function", "function": {"name": "find_customer_by_name", "parameters": BY_NAME}}
    request = {
        "model": "agent",
        "messages": [
            {"role": "user", "content": "Hello, I want to cancel order LK838086."},
            {"role": "assistant", "content": "Could you tell me your name and zip code?"},
            {"role": "user", "content": "I'm Cyrus Nilsen, zip code 87576."},
        ],
        "tools": [tool],
    }
    view, rules = ChatView.parse(request), Policy.model_validate(policy())
    choice = local_engine.engine.fill_tool(
        view, rules, build_candidates(view, rules), "find_customer_by_name", None
    )
    assert choice.arguments == {"first_name": "Cyrus", "last_name": "Nilsen", "zip": "87576"}, choice
