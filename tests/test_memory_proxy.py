"""Values copied from the conversation's memory, through the real proxy: real embedded models,
the openai SDK, a real upstream. An id an earlier tool result listed is copied with its path as
provenance; a list of ids is walked one call at a time; an array of objects is filled from a
result's records, or the engine abstains; a value found nowhere is never served; an address
written out on one line fills a write's address fields after the user's yes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.clients import client, decision
from tests.support.conversations import call, result
from tests.support.local_path import policy

pytestmark = pytest.mark.slow

ORDER_ID = {"type": "string", "description": "The order's id, like ORD-1001"}


def tool(name: str, description: str, properties: dict[str, Any]) -> dict[str, Any]:
    parameters = {"type": "object", "properties": properties, "required": list(properties)}
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


GET_ORDER = tool("get_order", "Look up one order by its id", {"order_id": ORDER_ID})
ITEMS = {
    "type": "array",
    "description": "The lines to send back",
    "items": {
        "type": "object",
        "properties": {"sku": {"type": "string"}, "quantity": {"type": "integer"}},
        "required": ["sku", "quantity"],
    },
}
RETURN_ITEMS = tool("return_items", "Send lines of an order back", {"order_id": ORDER_ID, "items": ITEMS})
REFUND = tool(
    "issue_refund",
    "Pay a refund by its code",
    {"refund_code": {"type": "string", "pattern": "^RF-[0-9]{4}$"}},
)


def step(url: str, messages: list[dict[str, Any]], offered: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """One step of the agent, whose only move is `offered` (tool_choice required): the call and
    the decision record."""
    raw = client(url).chat.completions.with_raw_response.create(
        model="shop-step",
        messages=messages,  # type: ignore[arg-type]
        tools=[offered],  # type: ignore[list-item]
        tool_choice="required",
        extra_headers={"X-Shadowswitch-Task": "pick_tool"},
    )
    return raw, decision(url, raw.headers["x-shadowswitch-decision-id"])


def at_path(message: dict[str, Any], path: str) -> Any:
    """The leaf at `orders[1].id` of a tool message's JSON content."""
    node: Any = json.loads(message["content"])
    for part in path.replace("]", "").replace("[", ".").split("."):
        node = node[int(part)] if part.isdigit() else node[part]
    return node


def listed(*ids: str) -> dict[str, Any]:
    return {
        "customer": "C-77",
        "orders": [{"id": i, "placed": "2027-03-0" + str(n)} for n, i in enumerate(ids, 1)],
    }


def test_an_id_an_earlier_result_listed_is_copied_with_its_path(proxy: Any, local_engine: Any) -> None:
    url = proxy(policy(), local_factory=lambda: local_engine)
    messages = [
        {"role": "user", "content": "Which orders do I have?"},
        call("list_orders", {"customer": "C-77"}, "c0"),
        result(listed("ORD-2741"), "c0"),
        {"role": "assistant", "content": "You have one order, placed on 1 March."},
        {"role": "user", "content": "Where is it now?"},
    ]
    raw, record = step(url, messages, GET_ORDER)
    assert raw.headers["x-shadowswitch-path"] == "local"
    sent = raw.parse().choices[0].message.tool_calls[0]
    assert json.loads(sent.function.arguments) == {"order_id": "ORD-2741"}
    source = record["argument_sources"]["order_id"]
    assert (source["message"], source["role"], source["path"]) == (2, "tool", "orders[0].id")
    assert at_path(messages[2], source["path"]) == "ORD-2741"
    assert messages[2]["content"][source["start"] : source["end"]] == "ORD-2741"


def test_a_list_of_ids_is_walked_one_call_at_a_time(proxy: Any, local_engine: Any) -> None:
    url = proxy(policy(), local_factory=lambda: local_engine)
    messages = [
        {"role": "user", "content": "Please check the status of each of my orders."},
        call("list_orders", {"customer": "C-77"}, "c0"),
        result(listed("ORD-2741", "ORD-2790", "ORD-2802"), "c0"),
    ]
    for n, expected in enumerate(("ORD-2790", "ORD-2802"), 1):
        previous = listed("ORD-2741", "ORD-2790", "ORD-2802")["orders"][n - 1]["id"]
        messages += [
            call("get_order", {"order_id": previous}, f"c{n}"),
            result({"order_id": previous, "status": "shipped"}, f"c{n}"),
        ]
        raw, record = step(url, messages, GET_ORDER)
        assert raw.headers["x-shadowswitch-path"] == "local", record["abstain_reason"]
        sent = raw.parse().choices[0].message.tool_calls[0]
        assert json.loads(sent.function.arguments) == {"order_id": expected}
        assert record["argument_sources"]["order_id"]["path"] == f"orders[{n}].id"


CANCEL_ORDER = tool("cancel_order", "Cancel an order that has not shipped", {"order_id": ORDER_ID})


def test_a_write_after_a_walk_never_takes_the_walks_next_id(proxy: Any, local_engine: Any) -> None:
    """`get_order` walked the list to the order asked about; the cancellation acts on that order.
    The walk's next id is no value for another tool: before, it won (the shop's cancellations
    took the customer's next order, 9 of 18 times)."""
    url = proxy(policy(), local_factory=lambda: local_engine)
    ids = ("ORD-2741", "ORD-2790", "ORD-2802")
    messages = [
        {"role": "user", "content": "Please cancel the order with the desk lamp in it."},
        call("list_orders", {"customer": "C-77"}, "c0"),
        result(listed(*ids), "c0"),
        call("get_order", {"order_id": ids[0]}, "c1"),
        result({"order_id": ids[0], "status": "pending", "items": ["Cable"]}, "c1"),
        call("get_order", {"order_id": ids[1]}, "c2"),
        result({"order_id": ids[1], "status": "pending", "items": ["Desk lamp"]}, "c2"),
        {"role": "assistant", "content": f"To confirm: I'll cancel order {ids[1]}. Shall I go ahead?"},
        {"role": "user", "content": "yes please"},
    ]
    raw, record = step(url, messages, CANCEL_ORDER)
    if raw.headers["x-shadowswitch-path"] == "local":
        assert json.loads(raw.parse().choices[0].message.tool_calls[0].function.arguments) == {
            "order_id": ids[1]
        }
    else:  # the prior does not weigh the order in focus: it abstains, never guesses the next
        assert record["abstain_reason"] == "missing_value:order_id", record


def returned(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    order = {"order": {"order_id": "ORD-2741", "status": "delivered", "lines": lines}}
    return [
        {"role": "user", "content": "I want to send back everything from ORD-2741."},
        call("get_order", {"order_id": "ORD-2741"}, "c0"),
        result(order, "c0"),
    ]


def test_an_array_of_objects_is_filled_from_a_results_records(proxy: Any, local_engine: Any) -> None:
    url = proxy(policy(), local_factory=lambda: local_engine)
    lines = [
        {"sku": "LMP-20", "title": "Desk lamp", "quantity": 2},
        {"sku": "CBL-7", "title": "Cable", "quantity": 1},
    ]
    raw, record = step(url, returned(lines), RETURN_ITEMS)
    assert raw.headers["x-shadowswitch-path"] == "local", record["abstain_reason"]
    sent = json.loads(raw.parse().choices[0].message.tool_calls[0].function.arguments)
    assert sent == {
        "order_id": "ORD-2741",
        "items": [{"sku": "LMP-20", "quantity": 2}, {"sku": "CBL-7", "quantity": 1}],
    }
    assert record["argument_sources"]["items"]["path"] == "order.lines[]"


def test_records_without_a_required_field_make_it_abstain(proxy: Any, local_engine: Any) -> None:
    url = proxy(policy(), local_factory=lambda: local_engine)
    lines = [{"sku": "LMP-20", "title": "Desk lamp"}, {"sku": "CBL-7", "title": "Cable"}]  # no quantities
    raw, record = step(url, returned(lines), RETURN_ITEMS)
    assert raw.headers["x-shadowswitch-path"] == "fallback"
    assert record["abstain_reason"] == "missing_value:items"


def test_a_value_found_nowhere_is_never_served(proxy: Any, local_engine: Any) -> None:
    url = proxy(policy(), local_factory=lambda: local_engine)
    messages = [
        {"role": "user", "content": "My return of ORD-2741 arrived, please pay me back."},
        call("get_order", {"order_id": "ORD-2741"}, "c0"),
        result({"order_id": "ORD-2741", "status": "returned", "refund": {"amount": 42.5}}, "c0"),
    ]
    raw, record = step(url, messages, REFUND)
    assert raw.headers["x-shadowswitch-path"] == "fallback"
    assert record["abstain_reason"] == "missing_value:refund_code"


LOST = tool("report_lost_device", "Report a device as lost", {"asset_tag": {"type": "string"}})


def test_a_persons_name_is_no_asset_tag(proxy: Any, local_engine: Any) -> None:
    """The results' asset tags are codes ("PH-2203"): the name the user signed with, which the
    filler read for `asset_tag` from their words, is written like none of them and never served."""
    url = proxy(policy(), local_factory=lambda: local_engine)
    devices = [
        {"asset_tag": "LT-4403", "kind": "laptop", "owner": "pnair"},
        {"asset_tag": "PH-2203", "kind": "phone", "owner": "pnair"},
    ]
    messages = [
        {"role": "user", "content": "Lost my phone :( Priya Nair, Marketing."},
        call("find_user", {"query": "Priya Nair"}, "c0"),
        result({"users": [{"username": "pnair", "name": "Priya Nair"}]}, "c0"),
        call("list_devices", {"username": "pnair"}, "c1"),
        result({"username": "pnair", "devices": devices}, "c1"),
    ]
    raw, record = step(url, messages, LOST)
    if raw.headers["x-shadowswitch-path"] == "local":
        sent = json.loads(raw.parse().choices[0].message.tool_calls[0].function.arguments)
        assert sent == {"asset_tag": "PH-2203"}
    else:  # two devices, and the prior does not weigh the one the user named: it abstains
        assert record["abstain_reason"] == "missing_value:asset_tag", record


ASSIGN = tool(
    "assign_ticket",
    "Assign a ticket to a technician",
    {
        "ticket_id": {"type": "string"},
        "assignee": {"type": "string", "description": "Username of a technician"},
    },
)


def test_a_first_name_is_no_username_its_description_asks_for(proxy: Any, local_engine: Any) -> None:
    """`assignee` is described as a username, and the look-up's result holds usernames: the first
    name the user wrote is written like none of them, and the look-up's username is copied."""
    url = proxy(policy(), local_factory=lambda: local_engine)
    messages = [
        {"role": "user", "content": "Please assign ticket INC-1010 to Karl from IT."},
        call("find_user", {"query": "Karl"}, "c0"),
        result({"query": "Karl", "users": [{"username": "kbauer", "name": "Karl Bauer"}]}, "c0"),
    ]
    raw, record = step(url, messages, ASSIGN)
    assert raw.headers["x-shadowswitch-path"] == "local", record["abstain_reason"]
    sent = json.loads(raw.parse().choices[0].message.tool_calls[0].function.arguments)
    assert sent == {"ticket_id": "INC-1010", "assignee": "kbauer"}
    assert record["argument_sources"]["assignee"]["path"] == "users[0].username"


FIELD = {"type": "string"}
MOVE = tool(
    "update_account_address",
    "Change the default address on the customer's account",
    {"customer_id": {"type": "string"}, "line1": FIELD, "city": FIELD, "state": FIELD, "zip": FIELD},
)
MOVE["function"]["parameters"]["properties"]["line2"] = {"type": "string", "description": "Apartment, unit"}


OLD = {"line1": "430 Spruce Drive", "line2": "Unit 4", "city": "Tacoma", "state": "WA", "zip": "92457"}


def confirmed(customer_id: str, new: str) -> list[dict[str, Any]]:
    """The agent reads the account (its old address in the record), asks to confirm the new one,
    written out, and the customer says yes."""
    return [
        call("get_customer", {"customer_id": customer_id}, "c1"),
        result({"customer_id": customer_id, "address": OLD}, "c1"),
        {"role": "assistant", "content": f"To confirm: your account's address becomes {new}. Proceed?"},
        {"role": "user", "content": "Yes, go ahead."},
    ]


def moving(new: str) -> list[dict[str, Any]]:
    """A customer asks to move and gives their email; the agent finds the account."""
    return [
        {"role": "user", "content": f"I've moved: please update my address to {new}. It's dana@example.com"},
        call("find_customer_by_email", {"email": "dana@example.com"}, "c0"),
        result({"customer_id": "cus_208811"}, "c0"),
        *confirmed("cus_208811", new),
    ]


@pytest.mark.parametrize(
    ("new", "fields"),
    [
        (
            "241 Quarry Drive, Boise, ID 95435",
            {"line1": "241 Quarry Drive", "city": "Boise", "state": "ID", "zip": "95435"},
        ),
        (
            "17 Elm Street, Apt 5, Salt Lake City, UT 84101",
            {
                "line1": "17 Elm Street",
                "line2": "Apt 5",
                "city": "Salt Lake City",
                "state": "UT",
                "zip": "84101",
            },
        ),
    ],
)
def test_an_address_written_out_fills_the_writes_fields(
    proxy: Any, local_engine: Any, new: str, fields: dict[str, str]
) -> None:
    url = proxy(policy(), local_factory=lambda: local_engine)
    messages = moving(new)
    raw, record = step(url, messages, MOVE)
    assert raw.headers["x-shadowswitch-path"] == "local", record["abstain_reason"]
    sent = json.loads(raw.parse().choices[0].message.tool_calls[0].function.arguments)
    assert sent == {"customer_id": "cus_208811", **fields}  # the record's old address is not copied
    for name, value in fields.items():
        source = record["argument_sources"][name]
        written = messages[source["message"]]["content"]
        assert source["role"] in ("user", "assistant") and written[source["start"] : source["end"]] == value


def test_an_address_read_unsure_is_never_served(proxy: Any, local_engine: Any) -> None:
    url = proxy(policy(), local_factory=lambda: local_engine)
    messages = moving("somewhere near Boise, zip 95435")  # no street: no address read
    raw, record = step(url, messages, MOVE)
    assert raw.headers["x-shadowswitch-path"] == "fallback"
    assert record["abstain_reason"] == "missing_value:line1"


def test_a_name_said_earlier_is_no_customer_id_after_the_look_up(proxy: Any, local_engine: Any) -> None:
    """The name the customer gave to be found, read for `customer_id` from that earlier turn, is
    written like none of the ids the records hold under that name (the one the agent sent on to
    `get_customer`): it is dropped and the record's id copied, never the name served as the id."""
    url = proxy(policy(), local_factory=lambda: local_engine)
    new = "591 Orchard Avenue, Unit 9, Missoula, MT 96209"
    messages = [
        {"role": "user", "content": f"Can you change the default address on my account to {new}?"},
        {"role": "assistant", "content": "First I need your email address, or your full name and zip code."},
        {"role": "user", "content": "I'm Aiden Romero, zip code 86979."},
        call("find_customer_by_name", {"first_name": "Aiden", "last_name": "Romero", "zip": "86979"}, "c0"),
        result({"customer_id": "cus_217081"}, "c0"),
        *confirmed("cus_217081", new),
    ]
    raw, record = step(url, messages, MOVE)
    assert raw.headers["x-shadowswitch-path"] == "local", record["abstain_reason"]
    sent = json.loads(raw.parse().choices[0].message.tool_calls[0].function.arguments)
    fields = {
        "line1": "591 Orchard Avenue",
        "line2": "Unit 9",
        "city": "Missoula",
        "state": "MT",
        "zip": "96209",
    }
    assert sent == {"customer_id": "cus_217081", **fields}
    assert record["argument_sources"]["customer_id"]["role"] in ("tool", "call")


def test_a_piece_of_the_address_is_no_customer_id(proxy: Any, local_engine: Any) -> None:
    """The address in the turn the write answers: what the filler reads of it for another parameter
    (its zip as the customer's id) is dropped, and the record's id copied."""
    url = proxy(policy(), local_factory=lambda: local_engine)
    new = "241 Quarry Drive, Boise, ID 95435"
    messages = [
        *moving(new)[:3],
        call("get_customer", {"customer_id": "cus_208811"}, "c1"),
        result({"customer_id": "cus_208811", "address": OLD}, "c1"),
        {"role": "assistant", "content": "Found your account. Which address should I use?"},
        {"role": "user", "content": f"Use {new} from now on, thanks."},
    ]
    raw, record = step(url, messages, MOVE)
    assert raw.headers["x-shadowswitch-path"] == "local", record["abstain_reason"]
    sent = json.loads(raw.parse().choices[0].message.tool_calls[0].function.arguments)
    assert sent == {
        "customer_id": "cus_208811",
        "line1": "241 Quarry Drive",
        "city": "Boise",
        "state": "ID",
        "zip": "95435",
    }


USERNAME = {"type": "string", "description": "Username of the account, like jdoe"}
MEMBERS = tool(
    "list_group_members",
    "List the members of an access group",
    {"group": {"type": "string", "description": "Access group, like finance-share"}},
)
VPN = tool(
    "grant_vpn_access",
    "Give a user remote access until a day",
    {"username": USERNAME, "until": {"type": "string", "description": "Last day of access, YYYY-MM-DD"}},
)


def test_the_one_code_written_like_the_descriptions_example_is_read(proxy: Any, local_engine: Any) -> None:
    """ "finance-share" shows a group's form: the one token of the user's words written so is it."""
    url = proxy(policy(), local_factory=lambda: local_engine)
    messages = [{"role": "user", "content": "Who else is in design-assets? I need to know before Friday."}]
    raw, record = step(url, messages, MEMBERS)
    assert raw.headers["x-shadowswitch-path"] == "local", record["abstain_reason"]
    sent = json.loads(raw.parse().choices[0].message.tool_calls[0].function.arguments)
    assert sent == {"group": "design-assets"}
    source = record["argument_sources"]["group"]
    assert (source["message"], source["role"]) == (0, "user")
    assert messages[0]["content"][source["start"] : source["end"]] == "design-assets"


def test_a_word_written_unlike_the_username_example_is_never_served(proxy: Any, local_engine: Any) -> None:
    """ "VPN" is the word nearest "username" here, but no username is written like it (jdoe)."""
    url = proxy(policy(), local_factory=lambda: local_engine)
    messages = [
        {"role": "user", "content": "I'm working from home, I need VPN until Friday. Username pnair."}
    ]
    raw, record = step(url, messages, VPN)
    assert raw.headers["x-shadowswitch-path"] != "local"
    assert record["abstain_reason"] == "missing_value:username"
