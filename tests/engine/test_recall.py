"""The values the memory offers a parameter (`pointer.py`), and what it fills or leaves missing
(`recall.py`)."""

from __future__ import annotations

from shadowswitch.engines.local.arguments.grounding import Filled
from shadowswitch.engines.local.arguments.memory import MemoryReader
from shadowswitch.engines.local.arguments.params import params_of
from shadowswitch.engines.local.arguments.pointer import offers
from shadowswitch.engines.local.arguments.recall import MARGIN, overrule, recall
from shadowswitch.engines.local.arguments.today import Today
from shadowswitch.engines.local.learned_state import Pointer
from tests.support.conversations import GET_ORDER, call, request, result, walk


def test_a_list_is_walked_one_call_at_a_time() -> None:
    """Once the agent began the list; before, its values are alike (`list_first` is learned)."""
    param = params_of(GET_ORDER)[0]
    reader = MemoryReader()
    fresh = offers(param, reader.read(walk(), Today()))
    assert abs(fresh[0].score - fresh[1].score) < MARGIN  # alike: which one is not known
    filled = Filled(missing=["order_id"])
    recall(filled, GET_ORDER, reader.read(walk(), Today()))
    assert filled.missing == ["order_id"]
    second = offers(param, reader.read(walk("ORD-1001"), Today()))
    assert second[0].value == "ORD-1002" and second[0].found.entry.path == "orders[1].order_id"
    assert "list_used" in next(o for o in second if o.value == "ORD-1001").features


def test_a_learned_margin_makes_the_walks_first_id_sure_for_its_tool_only() -> None:
    """A state whose pairs showed its pointer right about `get_order`'s id at a small margin fills
    the first id of a list not yet walked, which the fixed margin calls unsure; another tool keeps
    the fixed rule."""
    pointer = Pointer({"list_first": 1.5}, {"get_order.order_id": 0.5})
    first = offers(params_of(GET_ORDER)[0], MemoryReader().read(walk(), Today()), pointer.weights)
    assert 0.5 <= first[0].score - first[1].score < MARGIN
    filled = Filled(missing=["order_id"])
    recall(filled, GET_ORDER, MemoryReader().read(walk(), Today()), pointer, "get_order")
    assert (
        filled.arguments == {"order_id": "ORD-1001"}
        and filled.sources["order_id"]["path"] == "orders[0].order_id"
    )
    other = Filled(missing=["order_id"])
    recall(other, GET_ORDER, MemoryReader().read(walk(), Today()), pointer, "cancel_order")
    assert other.missing == ["order_id"]


def test_recall_copies_with_the_path_as_provenance_or_leaves_it_missing() -> None:
    filled = Filled(missing=["order_id"])
    recall(filled, GET_ORDER, MemoryReader().read(walk("ORD-1001"), Today()))
    assert filled.arguments == {"order_id": "ORD-1002"} and not filled.missing
    assert filled.sources["order_id"]["path"] == "orders[1].order_id"
    assert filled.sources["order_id"]["message"] == 3
    read = filled.read["order_id"]
    assert read.picked == 0 and all("memory" in f for f in read.features)


def test_a_value_found_nowhere_is_never_filled() -> None:
    parameters = {
        "type": "object",
        "properties": {"refund_code": {"type": "string", "pattern": "^RF-[0-9]{4}$"}},
        "required": ["refund_code"],
    }
    filled = Filled(missing=["refund_code"])
    recall(filled, parameters, MemoryReader().read(walk("ORD-1001"), Today()))
    assert filled.missing == ["refund_code"] and not filled.arguments


def test_two_values_alike_leave_it_missing() -> None:
    """Two customers found, each with an id: which one is not known."""
    parameters = {
        "type": "object",
        "properties": {"customer_id": {"type": "string"}},
        "required": ["customer_id"],
    }
    found = {"customers": [{"id": "C-1"}, {"id": "C-2"}], "note": "two matches"}
    view = request({"role": "user", "content": "Find Ann"}, call("find", {}, "c0"), result(found, "c0"))
    filled = Filled(missing=["customer_id"])
    recall(filled, parameters, MemoryReader().read(view, Today()))
    assert filled.missing == ["customer_id"]


RETURN = {
    "type": "object",
    "properties": {
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"sku": {"type": "string"}, "quantity": {"type": "integer"}},
                "required": ["sku", "quantity"],
            },
        }
    },
    "required": ["items"],
}


def test_an_array_of_objects_is_filled_record_by_record() -> None:
    order = {
        "order": {"id": "ORD-1", "lines": [{"sku": "A-1", "quantity": 2}, {"sku": "B-7", "quantity": 1}]}
    }
    view = request({"role": "user", "content": "Return it all"}, call("get", {}, "c0"), result(order, "c0"))
    filled = Filled(missing=["items"])
    recall(filled, RETURN, MemoryReader().read(view, Today()))
    assert filled.arguments["items"] == [{"sku": "A-1", "quantity": 2}, {"sku": "B-7", "quantity": 1}]
    assert filled.sources["items"]["path"] == "order.lines[]"


def test_an_array_of_objects_with_a_field_nowhere_is_missing() -> None:
    order = {"order": {"lines": [{"sku": "A-1"}, {"sku": "B-7"}]}}  # no quantities
    view = request({"role": "user", "content": "Return it all"}, call("get", {}, "c0"), result(order, "c0"))
    filled = Filled(missing=["items"])
    recall(filled, RETURN, MemoryReader().read(view, Today()))
    assert filled.missing == ["items"] and not filled.arguments


def test_a_value_another_parameter_took_is_not_copied_again() -> None:
    """The ticket's id said earlier is not the note the turn left missing."""
    parameters = {
        "type": "object",
        "properties": {"order_id": {"type": "string"}, "note": {"type": "string"}},
        "required": ["order_id", "note"],
    }
    view = request(
        {"role": "user", "content": "About ORD-2741"}, {"role": "user", "content": "Note it please"}
    )
    filled = Filled(arguments={"order_id": "ORD-2741"}, missing=["note"])
    recall(filled, parameters, MemoryReader().read(view, Today()))
    assert filled.missing == ["note"]


def test_a_note_is_written_not_copied() -> None:
    """An id said earlier is no note, even where nothing else is offered."""
    parameters = {"type": "object", "properties": {"note": {"type": "string"}}, "required": ["note"]}
    view = request({"role": "user", "content": "About ORD-2741"}, {"role": "user", "content": "Add a note"})
    filled = Filled(missing=["note"])
    recall(filled, parameters, MemoryReader().read(view, Today()))
    assert filled.missing == ["note"]


CUSTOMER = {
    "type": "object",
    "properties": {"customer_id": {"type": "string", "description": "The customer's id"}},
    "required": ["customer_id"],
}


def test_a_records_own_id_overrules_a_guess_from_the_words() -> None:
    """The user gave an email; the look-up's record has a `customer_id`: the filler's span (the
    email) gives way to the record's field, with its path. A value the words hold that is such a
    field stays, and with no field of that name nothing changes."""
    found = {"customer_id": "cus_1042", "email": "ann@corp.example", "name": "Ann Lee"}
    view = request(
        {"role": "user", "content": "It's ann@corp.example"},
        call("find_customer_by_email", {"email": "ann@corp.example"}, "c0"),
        result(found, "c0"),
    )
    memory = MemoryReader().read(view, Today())
    text = {"customer_id": {"source": "text"}}
    guessed = Filled(arguments={"customer_id": "ann@corp.example"}, sources=dict(text))
    overrule(guessed, CUSTOMER, memory)
    assert guessed.arguments == {"customer_id": "cus_1042"}
    assert guessed.sources["customer_id"]["path"] == "customer_id"
    read = guessed.read["customer_id"]  # what the memory offered: a case for the learned pointer
    assert read.values[read.picked] == "cus_1042" and all("memory" in f for f in read.features)
    said = Filled(arguments={"customer_id": "cus_1042"}, sources={"customer_id": {"source": "text"}})
    overrule(said, CUSTOMER, memory)
    assert said.sources["customer_id"] == {"source": "text"}
    other = {"type": "object", "properties": {"email": {"type": "string"}}, "required": ["email"]}
    kept = Filled(arguments={"email": "ann@corp.example"}, sources={"email": {"source": "text"}})
    overrule(kept, other, memory)
    assert kept.arguments == {"email": "ann@corp.example"}


def test_a_list_of_ids_is_named_by_its_key() -> None:
    """`orders: ["LK1", ...]` offers `order_id` values as the field of that name would."""
    view = request(
        {"role": "user", "content": "Where is my order?"},
        call("get_customer", {"customer_id": "cus_1"}, "c0"),
        result({"customer_id": "cus_1", "orders": ["LK100", "LK200"]}, "c0"),
    )
    top = offers(params_of(GET_ORDER)[0], MemoryReader().read(view, Today()))
    listed = [o for o in top if o.value in ("LK100", "LK200")]
    assert listed and all("key_name" in o.features for o in listed)
    assert "key_name" not in next(o for o in top if o.value == "cus_1").features


ORDER = {
    "type": "object",
    "properties": {"order_id": {"type": "string", "description": "The order's id"}},
    "required": ["order_id"],
}


def test_an_id_written_unlike_the_records_ids_is_dropped_not_served() -> None:
    """The customer's record lists order ids like LK862902 and holds their email: the email (or
    their name) the filler read from the words for `order_id` is not an order id. With no sure
    copy (the walk not begun) the parameter is missing; once the walk began, the next id is
    copied. An order id the user typed, written like the record's, stays."""
    record = {"customer_id": "cus_1042", "email": "ann@corp.example", "orders": ["LK862902", "LK046639"]}
    opened = (
        {"role": "user", "content": "It's ann@corp.example"},
        call("get_customer", {"customer_id": "cus_1042"}, "c0"),
        result(record, "c0"),
    )
    for guess in ("ann@corp.example", "Ann Lee"):
        filled = Filled(arguments={"order_id": guess}, sources={"order_id": {"source": "text"}})
        overrule(filled, ORDER, MemoryReader().read(request(*opened), Today()))
        assert filled.arguments == {} and filled.missing == ["order_id"], guess
    walked = request(
        *opened, call("get_order", {"order_id": "LK862902"}, "c1"), result({"order_id": "LK862902"}, "c1")
    )
    filled = Filled(arguments={"order_id": "ann@corp.example"}, sources={"order_id": {"source": "text"}})
    overrule(filled, ORDER, MemoryReader().read(walked, Today()))
    assert filled.arguments == {"order_id": "LK046639"} and not filled.missing
    assert filled.sources["order_id"]["path"] == "orders[1]"
    typed = Filled(arguments={"order_id": "LK555123"}, sources={"order_id": {"source": "text"}})
    overrule(typed, ORDER, MemoryReader().read(request(*opened), Today()))
    assert typed.arguments == {"order_id": "LK555123"}


def test_another_id_is_not_offered_as_this_one() -> None:
    """`customer_id` shares only "id" with `order_id`: the record's order list outranks it."""
    record = {"customer_id": "cus_1042", "orders": ["LK862902", "LK046639"]}
    view = request(
        {"role": "user", "content": "Where is my order?"},
        call("get_customer", {"customer_id": "cus_1042"}, "c0"),
        result(record, "c0"),
    )
    found = offers(params_of(ORDER)[0], MemoryReader().read(view, Today()))
    assert found[0].value != "cus_1042" and found[0].value.startswith("LK")
    assert "key_desc" not in next(o for o in found if o.value == "cus_1042").features


def test_a_result_that_is_one_value_is_named_by_its_tool() -> None:
    """`find_user_id_by_email` answers `mia_garcia_4516`, no key around it: the value is the
    `user_id` its name says it returns, and it overrules the email the words gave."""
    user_id = {
        "type": "object",
        "properties": {"user_id": {"type": "string", "description": "The user's id"}},
        "required": ["user_id"],
    }
    view = request(
        {"role": "user", "content": "I want to return a lamp. My email is mia.garcia@example.com"},
        call("find_user_id_by_email", {"email": "mia.garcia@example.com"}, "c0"),
        {"role": "tool", "tool_call_id": "c0", "content": "mia_garcia_4516"},
    )
    memory = MemoryReader().read(view, Today())
    best = offers(params_of(user_id)[0], memory)[0]
    assert (best.value, best.found.entry.path, best.found.role) == ("mia_garcia_4516", "user_id", "tool")
    guessed = Filled(arguments={"user_id": "mia.garcia@example.com"}, sources={"user_id": {"source": "text"}})
    overrule(guessed, user_id, memory)
    assert (
        guessed.arguments == {"user_id": "mia_garcia_4516"}
        and guessed.sources["user_id"]["path"] == "user_id"
    )
    prose = request(
        {"role": "user", "content": "Where is my order?"},
        call("cancel_order", {"order_id": "LK1"}, "c0"),
        {"role": "tool", "tool_call_id": "c0", "content": "cancelled"},
    )
    assert all(f.entry.path != "cancel_order" for f in MemoryReader().read(prose, Today()))
    escaped = request(
        {"role": "user", "content": "It's mia.garcia@example.com"},
        call("find_user_id_by_email", {"email": "mia.garcia@example.com"}, "c0"),
        {"role": "tool", "tool_call_id": "c0", "content": '"mia\\u005fgarcia"'},
    )
    kept = [f.entry for f in MemoryReader().read(escaped, Today()) if f.entry.path == "user_id"]
    assert [(e.value, e.start) for e in kept] == [("mia_garcia", -1)]  # no span to point at, no error


def test_what_the_agent_and_the_user_did_with_a_value_is_a_feature() -> None:
    """An id this tool was already sent (`same_call`), the one the agent's latest call sent (`focus`:
    the record it is on), one the user wrote (`said`): features the learned pointer weighs."""
    param = params_of(GET_ORDER)[0]
    messages = [*walk("ORD-1001").messages[1:], {"role": "user", "content": "It is ORD-1003, I think."}]
    found = {
        o.value: o.features
        for o in offers(param, MemoryReader().read(request(*messages), Today()), tool="get_order")
    }
    assert {"same_call", "focus"} <= set(found["ORD-1001"]) and "said" not in found["ORD-1001"]
    assert "said" in found["ORD-1003"] and not {"same_call", "focus"} & set(found["ORD-1003"])
    assert not {"same_call", "focus", "said"} & set(found["ORD-1002"])
    cancel = {
        o.value: o.features
        for o in offers(param, MemoryReader().read(walk("ORD-1001"), Today()), tool="cancel_order")
    }
    assert "focus" in cancel["ORD-1001"] and "same_call" not in cancel["ORD-1001"]  # another tool
