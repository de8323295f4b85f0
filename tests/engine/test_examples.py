"""A code parameter's value is written like its description's example (`arguments/examples.py`,
and `recall.overrule` for the values it drops)."""

from __future__ import annotations

from typing import Any

from shadowswitch.engines.local.arguments.examples import examples_of, like_examples
from shadowswitch.engines.local.arguments.grounding import Filled
from shadowswitch.engines.local.arguments.memory import MemoryReader
from shadowswitch.engines.local.arguments.recall import overrule
from shadowswitch.engines.local.arguments.today import Today
from tests.support.conversations import request


def schema(**properties: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {name: {"type": "string", "description": d} for name, d in properties.items()},
        "required": list(properties),
    }


GROUP = schema(username="Username of the account, like jdoe", group="Access group, like finance-share")
TICKET = schema(ticket_id="Ticket id, like INC-1042")


def said(text: str) -> tuple[str, dict[str, Any]]:
    return text, {"source": "text", "message": 0, "start": 0, "end": len(text)}


def test_the_examples_are_the_one_token_codes_a_description_gives() -> None:
    assert examples_of("Asset tag of the device, like LT-4410 or PH-2203") == {"LT-4410", "PH-2203"}
    assert examples_of("The order id, such as '#W0000000'.") == {"#W0000000"}
    assert examples_of("The city and state, e.g. San Francisco, CA") == {"CA"}  # no code: no rule
    assert examples_of("Part of a name, username or email") == frozenset()


def overruled(filled: Filled, parameters: dict[str, Any], text: str) -> Filled:
    """`filled` after `recall.overrule`, the user's turn `text` the whole conversation."""
    memory = MemoryReader().read(request({"role": "user", "content": text}, parameters=parameters), Today())
    overrule(filled, parameters, memory)
    return filled


def test_a_value_written_unlike_the_id_example_is_dropped() -> None:
    """ "VPN" is no username like jdoe, "Lin Chen" no group like finance-share; "pnair" is one."""
    filled = Filled()
    filled.put("username", said("VPN"))
    filled.put("group", said("Lin Chen"))
    overruled(filled, GROUP, "I need VPN and Lin Chen's group")
    assert filled.arguments == {} and filled.missing == ["username", "group"]
    kept = Filled()
    kept.put("username", said("pnair"))
    overruled(kept, GROUP, "Add pnair please")
    assert kept.arguments == {"username": "pnair"}


def test_a_parameter_that_is_no_id_keeps_a_value_unlike_a_word_example() -> None:
    product = schema(product="Licensed product, like Figma or Adobe Acrobat")
    filled = Filled()
    filled.put("product", said("power bi pro"))
    overruled(filled, product, "power bi pro for me")
    assert filled.arguments == {"product": "power bi pro"}


def test_the_one_token_written_like_the_code_fills_the_missing_value() -> None:
    messages = [{"role": "user", "content": "Please add okoval to the finance-share group."}]
    filled = Filled(missing=["username", "group"])
    like_examples(filled, GROUP, messages)
    assert filled.arguments == {"group": "finance-share"}
    assert filled.sources["group"] == {
        "source": "text",
        "message": 0,
        "role": "user",
        "start": 25,
        "end": 38,
        "text": "finance-share",
    }
    assert filled.missing == ["username"]  # letters alone: any word is written like jdoe


def test_two_tokens_written_like_the_code_fill_nothing() -> None:
    messages = [
        {"role": "user", "content": "INC-1042 is a duplicate of INC-1040, close it."},
    ]
    filled = Filled(missing=["ticket_id"])
    like_examples(filled, TICKET, messages)
    assert filled.arguments == {} and filled.missing == ["ticket_id"]


def test_an_earlier_turn_gives_the_code_when_the_last_has_none() -> None:
    messages = [
        {"role": "user", "content": "My ticket INC-2001 is still open."},
        {"role": "assistant", "content": "Shall I close it?"},
        {"role": "user", "content": "Yes please."},
    ]
    filled = Filled(missing=["ticket_id"])
    like_examples(filled, TICKET, messages)
    assert filled.arguments == {"ticket_id": "INC-2001"} and filled.sources["ticket_id"]["message"] == 0
