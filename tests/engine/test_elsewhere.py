"""Values read elsewhere than the last user turn: a tool result's keys, earlier turns, provenance.

Pure logic, no model: the filler of tests/support/arguments.py reads the earlier turns."""

from __future__ import annotations

import json
from typing import Any

from shadowswitch.engines.local.arguments.elsewhere import read_elsewhere
from shadowswitch.engines.local.arguments.grounding import Filled, from_text, in_message
from shadowswitch.engines.local.arguments.results import Keyed, key_names, keyed_values, read_result, words
from shadowswitch.engines.local.conversation import earlier_turns, results_this_turn
from shadowswitch.request import ChatView
from tests.support.arguments import FILLER
from tests.support.provenance import assert_grounded

SEARCH = json.dumps(
    {"query": "Dana Whitfield", "users": [{"username": "dwhitfield", "name": "Dana Whitfield", "id": 42}]}
)
TWO = json.dumps({"users": [{"username": "dwhitfield"}, {"username": "dwhite"}]})


def obj(required: list[str], **props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required}


def missing(schema: dict[str, Any]) -> Filled:
    return Filled(missing=list(schema["required"]))


def test_a_result_is_read_as_json_leaves_with_their_key_parent_and_span() -> None:
    entries = read_result(SEARCH)
    assert [(e.key, e.parent, e.value) for e in entries] == [
        ("query", None, "Dana Whitfield"),
        ("username", "users", "dwhitfield"),
        ("name", "users", "Dana Whitfield"),
        ("id", "users", 42),
    ]
    for e in entries:  # the span is the value as written (a string without its quotes)
        assert SEARCH[e.start : e.end] == (e.value if isinstance(e.value, str) else json.dumps(e.value))
    name = entries[2]
    assert SEARCH[name.start - 9 : name.start] == '"name": "'  # the second "Dana Whitfield", not the query


def test_plain_text_results_give_key_value_lines() -> None:
    text = "Ticket created.\nTicket ID: INC-1042\npriority = 2\n"
    assert [(e.key, e.value, text[e.start : e.end]) for e in read_result(text)] == [
        ("Ticket ID", "INC-1042", "INC-1042"),
        ("priority", 2, "2"),
    ]


def test_a_key_names_the_parameter_by_its_words_or_with_its_parent() -> None:
    assert words("userName") == words("user_name") == words("user-name") == ("user", "name")
    assert key_names(Keyed("userName", None, "x", 0, 1), "user_name")
    assert key_names(Keyed("id", "tickets", "x", 0, 1), "ticket_id")
    assert key_names(Keyed("id", "category", "x", 0, 1), "category_id")
    assert not key_names(Keyed("id", "users", "x", 0, 1), "ticket_id")
    assert not key_names(Keyed("name", None, "x", 0, 1), "username")
    assert not key_names(Keyed("id", None, "x", 0, 1), "ticket_id")


def test_an_ambiguous_key_gives_no_value() -> None:
    assert keyed_values([(3, TWO)], "username") == []
    same_twice = json.dumps({"a": {"username": "dwhitfield"}, "b": {"username": "dwhitfield"}})
    assert len(keyed_values([(3, same_twice)], "username")) == 2  # the same value twice is one value
    assert keyed_values([(3, SEARCH), (5, TWO)], "username") == []  # across results too


def test_a_missing_required_value_is_taken_from_this_turns_result_with_its_span() -> None:
    schema = obj(["username"], username={"type": "string"})
    filled = missing(schema)
    read_elsewhere(filled, schema, [], [(3, SEARCH)], FILLER.fill)
    assert filled.arguments == {"username": "dwhitfield"} and filled.missing == []
    source = filled.sources["username"]
    assert source["message"] == 3 and source["key"] == "username" and source["text"] == "dwhitfield"
    assert SEARCH[source["start"] : source["end"]] == "dwhitfield"


def test_two_users_found_means_no_username_and_the_engine_abstains() -> None:
    schema = obj(["username"], username={"type": "string"})
    filled = missing(schema)
    read_elsewhere(filled, schema, [], [(3, TWO)], FILLER.fill)
    assert filled.arguments == {} and filled.abstain_reason == "missing_value:username"


def test_a_value_of_the_wrong_type_or_outside_the_enum_is_not_given() -> None:
    schema = obj(
        ["status", "count"], status={"type": "string", "enum": ["open", "closed"]}, count={"type": "integer"}
    )
    filled = missing(schema)
    read_elsewhere(filled, schema, [], [(1, json.dumps({"status": "pending", "count": "many"}))], FILLER.fill)
    assert filled.arguments == {} and filled.missing == ["status", "count"]
    read_elsewhere(filled, schema, [], [(1, json.dumps({"status": "open", "count": "7"}))], FILLER.fill)
    assert filled.arguments == {"status": "open", "count": 7} and filled.missing == []


def test_an_optional_parameter_is_not_filled_from_a_result() -> None:
    schema = obj([], username={"type": "string"})
    filled = Filled()
    read_elsewhere(filled, schema, [], [(3, SEARCH)], FILLER.fill)
    assert filled.arguments == {}


def test_a_looked_up_value_is_replaced_by_what_the_lookup_found() -> None:
    schema = obj(["username"], username={"type": "string"})
    filled = Filled()
    text = "This is Dana Whitfield"
    filled.put("username", ("Dana Whitfield", in_message(from_text(text, 8, 22), 1)))
    read_elsewhere(filled, schema, [], [(3, SEARCH)], FILLER.fill)
    assert filled.arguments == {"username": "dwhitfield"} and filled.sources["username"]["message"] == 3


def test_a_value_the_results_do_not_hold_stays_as_the_user_wrote_it() -> None:
    schema = obj(["username"], username={"type": "string"})
    filled = Filled()
    filled.put("username", ("okoval", in_message(from_text("user okoval", 5, 11), 1)))
    read_elsewhere(filled, schema, [], [(3, SEARCH)], FILLER.fill)
    assert filled.arguments == {"username": "okoval"} and filled.sources["username"]["message"] == 1


def test_an_earlier_turn_gives_a_value_and_a_disagreeing_result_makes_it_unsure() -> None:
    schema = obj(["email"], email={"type": "string", "description": "email address"})
    earlier = [(1, "my address is ann@corp.example")]
    filled = missing(schema)
    read_elsewhere(filled, schema, earlier, [], FILLER.fill)
    assert filled.arguments == {"email": "ann@corp.example"}
    assert filled.sources["email"]["message"] == 1 and filled.sources["email"]["text"] == "ann@corp.example"
    unsure = missing(schema)
    read_elsewhere(unsure, schema, earlier, [(3, json.dumps({"email": "bob@corp.example"}))], FILLER.fill)
    assert unsure.arguments == {} and unsure.missing == ["email"]
    agreeing = missing(schema)
    read_elsewhere(agreeing, schema, earlier, [(3, json.dumps({"email": "ann@corp.example"}))], FILLER.fill)
    assert agreeing.arguments == {"email": "ann@corp.example"} and agreeing.sources["email"]["message"] == 1


def test_the_conversation_places_and_the_provenance_holds() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are the help desk."},
        {"role": "user", "content": "I am locked out"},
        {"role": "assistant", "content": "Who are you?"},
        {"role": "user", "content": "Dana Whitfield"},
        {"role": "assistant", "tool_calls": [_call("c1", "find_user", {"query": "Dana Whitfield"})]},
        {"role": "tool", "tool_call_id": "c1", "content": SEARCH},
    ]
    view = ChatView.parse({"model": "m", "messages": messages})
    assert earlier_turns(view) == [(1, "I am locked out")]
    assert results_this_turn(view) == [(5, SEARCH)]
    schema = obj(["username", "user_id"], username={"type": "string"}, user_id={"type": "integer"})
    filled = missing(schema)
    read_elsewhere(filled, schema, earlier_turns(view), results_this_turn(view), FILLER.fill)
    assert filled.arguments == {"username": "dwhitfield", "user_id": 42}
    assert_grounded(filled.arguments, filled.sources, schema, messages)


def _call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def test_a_part_of_a_looked_up_name_is_resolved_too_but_not_a_fragment_of_a_word() -> None:
    schema = obj(["username"], username={"type": "string"})
    filled = Filled()
    filled.put("username", ("Whitfield", in_message(from_text("for Whitfield", 4, 13), 1)))
    read_elsewhere(filled, schema, [], [(3, SEARCH)], FILLER.fill)
    assert filled.arguments == {"username": "dwhitfield"}
    kept = Filled()
    kept.put("username", ("Whit", in_message(from_text("for Whit", 4, 8), 1)))
    read_elsewhere(kept, schema, [], [(3, SEARCH)], FILLER.fill)
    assert kept.arguments == {"username": "Whit"}


NOTE = obj(
    ["ticket_id", "note"],
    ticket_id={"type": "string", "description": "Ticket id, like INC-1234"},
    note={"type": "string", "description": "The note to add"},
)


def test_an_earlier_turn_that_contradicts_the_last_one_gives_nothing() -> None:
    # the last turn's reading put a sentence in ticket_id; the earlier turn says another id, and
    # read for the missing note alone it would give the id as the note
    alone = FILLER.fill(obj(["note"], note=NOTE["properties"]["note"]), "Please look at INC-1010")
    assert alone.arguments.get("note"), alone
    filled = Filled(arguments={"ticket_id": "the laptop is now unplugged"}, missing=["note"])
    read_elsewhere(filled, NOTE, [(1, "Please look at INC-1010")], [], FILLER.fill)
    assert "note" not in filled.arguments and filled.missing == ["note"], filled
