"""The conversation's state the trained choice model reads: the user's answer to the agent's
confirmation, lists being walked, the last message; and the head learns a choice from it alone."""

from __future__ import annotations

from typing import Any

import numpy as np

from shadowswitch.engines.base import Choice, ChoiceTrace
from shadowswitch.engines.local.conversation import reply_text
from shadowswitch.engines.local.conversation_state import conversation_state
from shadowswitch.engines.local.learned_state import Request
from shadowswitch.learning.exemplar import build_exemplar
from shadowswitch.learning.fit import Pair
from shadowswitch.learning.head import L2_SHARED, train
from shadowswitch.request import ChatView
from tests.support.conversations import call, result, walk

CANCEL = {"cancel_order": 0.4, "get_order": 0.35, "__no_tool__": 0.25}


def asked_then(answer: str, *before: str) -> ChatView:
    """The agent asks to confirm a cancellation; `before`: the user's earlier answers, each asked
    again."""
    question = {"role": "assistant", "content": "ORD-1001 is pending. Shall I cancel it now?"}
    again = [m for said in before for m in ({"role": "user", "content": said}, question)]
    messages = [
        {"role": "user", "content": "Cancel ORD-1001 please"},
        call("get_order", {"order_id": "ORD-1001"}, "c0"),
        result({"order_id": "ORD-1001", "status": "pending"}, "c0"),
        question,
        *again,
        {"role": "user", "content": answer},
    ]
    return ChatView.parse({"model": "agent", "messages": messages})


def test_the_users_answer_to_a_confirmation_is_read() -> None:
    assert conversation_state(asked_then("Yes, go ahead."))["confirm"] == "yes"
    assert conversation_state(asked_then("No, leave it."))["confirm"] == "no"
    assert conversation_state(asked_then("What would that cost?"))["confirm"] == "other"
    state = conversation_state(asked_then("Yes"))
    assert state["last_role"] == "user" and state["asked"]
    assert conversation_state(asked_then("Yes, I'm sure.", "Yes please"))["confirm"] == "again"
    assert conversation_state(asked_then("Yes", "Hmm, what would it cost?"))["confirm"] == "yes"
    sure = [
        {"role": "assistant", "content": "This can't be undone. Are you sure?"},
        {"role": "user", "content": "yes"},
    ]
    view = asked_then("Yes please")
    assert (
        conversation_state(ChatView.parse({"model": "a", "messages": [*view.messages, *sure]}))["confirm"]
        == "again"
    )


def test_a_list_being_walked_is_open_until_every_id_is_looked_up_and_a_named_id_is_no_walk() -> None:
    assert conversation_state(walk())["open_walks"] == 0  # not begun
    assert conversation_state(walk("ORD-1001"))["open_walks"] == 1
    assert conversation_state(walk("ORD-1001", "ORD-1002"))["open_walks"] == 0
    assert conversation_state(walk("ORD-1001"))["last_role"] == "tool"
    named = walk("ORD-1001").messages
    named = ({**named[0]}, {"role": "user", "content": "Where is my order ord-1001?"}, *named[2:])
    assert conversation_state(ChatView.parse({"model": "m", "messages": list(named)}))["open_walks"] == 0


def confirmations(n: int, seed: int = 0) -> list[Pair]:
    """The same words ("yes" and "no" read alike to the encoder): only the state tells them apart."""
    rng = np.random.default_rng(seed)
    vector = rng.normal(size=16)
    pairs = []
    for i in range(n):
        q = vector + 0.01 * rng.normal(size=16)
        q = (q / np.linalg.norm(q)).astype(np.float32)
        yes = i % 2 == 0
        label = "cancel_order" if yes else "__no_tool__"
        turn: dict[str, Any] = {"last_role": "user", "confirm": "yes" if yes else "no", "asked": True}
        pairs.append(Pair(i, q, label, CANCEL, label, "none", None, frozenset(), "get_order", False, 1, turn))
    return pairs


def test_the_head_learns_the_write_after_yes_and_a_reply_after_no() -> None:
    head = train(confirmations(40))
    vector = confirmations(1, seed=1)[0].vector
    asked = {"last_role": "user", "asked": True}  # the state as the engine reads it
    yes, no = {**asked, "confirm": "yes"}, {**asked, "confirm": "no"}
    after_yes = head.predict(Request(vector, CANCEL, last_tool="get_order", step=1, turn=yes))
    after_no = head.predict(Request(vector, CANCEL, last_tool="get_order", step=1, turn=no))
    assert max(after_yes, key=lambda c: after_yes[c]) == "cancel_order"
    assert max(after_no, key=lambda c: after_no[c]) == "__no_tool__"


def test_a_pair_whose_tool_was_shortlisted_away_still_teaches() -> None:
    """Its choice joins its candidates at zero-shot 0; a tool never offered, or no tool where a
    call was required, is still no pair."""
    schema = {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}
    tools = [
        {"type": "function", "function": {"name": n, "parameters": schema}} for n in CANCEL if "_" in n[2:]
    ]
    request = ChatView.parse({"model": "m", "messages": asked_then("Yes").messages, "tools": tools})
    ranked = ChoiceTrace(vector=np.ones(4, np.float32).tobytes(), encoder="e", zero_shot={"get_order": 1.0})
    choice = Choice("tool", "get_order", trace=ranked)
    row = build_exemplar("t", "d1", request, choice, call("cancel_order", {"order_id": "ORD-1001"}, "c"))
    assert row is not None and row.zero_shot == {"get_order": 1.0, "cancel_order": 0.0}
    assert build_exemplar("t", "d2", request, choice, call("refund", {}, "c")) is None


def order_walk(items: str) -> ChatView:
    """The customer describes an order; the agent has their record (their city in it) and has
    read one of its orders, whose items are `items`, shipped to that same city."""
    messages = [
        {"role": "user", "content": "I'd like to return the running shoes I bought, I live in Boston."},
        call("get_customer", {"email": "ann@example.com"}, "c0"),
        result({"customer_id": "C-1", "city": "Boston", "orders": ["ORD-1", "ORD-2", "ORD-3"]}, "c0"),
        call("get_order", {"order_id": "ORD-1"}, "c1"),
        result({"order_id": "ORD-1", "city": "Boston", "items": [{"name": items, "sku": "SKU-99"}]}, "c1"),
    ]
    return ChatView.parse({"model": "agent", "messages": messages})


def test_a_result_showing_what_the_user_described_is_found() -> None:
    """The order's items name the user's words; the city does too, but the customer's record
    already showed it, so it says nothing about this order."""
    assert conversation_state(order_walk("Trail running shoes"))["found"] == round(2 / 3, 3)
    assert conversation_state(order_walk("Wireless headphones"))["found"] == 0.0
    assert conversation_state(asked_then("Yes"))["found"] == 0.0  # the last message is the user's


def walks(n: int, seed: int = 0) -> list[Pair]:
    """Walking a customer's orders with the same words at every step: the next order is looked
    up until one shows what the user described; then the agent replies."""
    rng = np.random.default_rng(seed)
    vector = rng.normal(size=16)
    offered = {"get_order": 0.5, "return_items": 0.2, "__no_tool__": 0.3}
    pairs = []
    for i in range(n):
        q = vector + 0.01 * rng.normal(size=16)
        q = (q / np.linalg.norm(q)).astype(np.float32)
        found = 0.667 if i % 2 == 0 else 0.0
        label = "__no_tool__" if found else "get_order"
        turn: dict[str, Any] = {"last_role": "tool", "open_walks": 1, "found": found}
        pairs.append(
            Pair(i, q, label, offered, label, "none", None, frozenset(), "get_order", False, 2, turn)
        )
    return pairs


def test_the_head_stops_a_walk_where_the_result_shows_what_the_user_described() -> None:
    head = train(walks(40))
    q = walks(1, seed=1)[0].vector
    offered = walks(1)[0].zero_shot

    def chosen(found: float) -> str:
        state = {"last_role": "tool", "open_walks": 1, "found": found}
        probs = head.predict(Request(q, offered, last_tool="get_order", step=2, turn=state))
        return max(probs, key=lambda c: probs[c])

    assert chosen(0.0) == "get_order"
    assert chosen(1.0) == "__no_tool__"


def test_a_weak_pull_on_the_shared_weights_lets_a_rare_state_speak() -> None:
    """Where a state is a few percent of the pairs (a walk's end, here 2 of 22), the head's
    default pull toward the cold start lets its weight grow; ten times that pull would not."""
    rare = [p for i, p in enumerate(walks(40)) if i % 2 or i % 20 == 0]
    q = walks(1, seed=1)[0].vector
    state = {"last_role": "tool", "open_walks": 1, "found": 1.0}
    request = Request(q, walks(1)[0].zero_shot, last_tool="get_order", step=2, turn=state)
    strong = train(rare, 10 * L2_SHARED).predict(request)["__no_tool__"]
    assert train(rare).predict(request)["__no_tool__"] > strong


WRITES = ("cancel_order", "return_items", "update_account_address")


def answered(n: int, seed: int = 0) -> list[Pair]:
    """The user's "yes" to three kinds of question: the words alike, the zero-shot ranking flat;
    only the agent's question, ranked against the tools (`ranks.reply`), says which write."""
    rng = np.random.default_rng(seed)
    vector = rng.normal(size=16)
    offered = {**dict.fromkeys(WRITES, 0.3), "__no_tool__": 0.1}
    pairs = []
    for i in range(n):
        q = vector + 0.01 * rng.normal(size=16)
        q = (q / np.linalg.norm(q)).astype(np.float32)
        label = WRITES[int(rng.integers(3))]
        reply = {w: 0.6 if w == label else 0.2 for w in WRITES}
        turn = {"last_role": "user", "confirm": "yes", "asked": True, "ranks": {"reply": reply}}
        pairs.append(Pair(i, q, label, offered, label, "none", None, frozenset(), None, False, 0, turn))
    return pairs


def test_after_yes_the_write_the_agents_question_named_is_chosen() -> None:
    head = train(answered(45))
    for pair in answered(12, seed=1):
        probs = head.predict(pair)
        assert max(probs, key=lambda c: probs[c]) == pair.label
        blind = head.predict(Request(pair.vector, pair.zero_shot, turn={**pair.turn, "ranks": {}}))
        assert max(blind.values()) < 0.5  # without the question it cannot tell


def test_the_engine_ranks_the_tools_against_the_agents_question(local_engine: Any) -> None:
    """The real engine records the tools ranked against the agent's last reply and the user's
    opening words: "Shall I cancel it now?" puts the cancel first, "Cancel ORD-1001" too."""
    from shadowswitch.policy.models import Policy
    from tests.support.local_path import policy as local_policy

    tools = [
        {
            "type": "function",
            "function": {"name": name, "description": text, "parameters": {"type": "object"}},
        }
        for name, text in (
            ("cancel_order", "Cancel an order that has not shipped yet"),
            ("return_items", "Return delivered items of an order for a refund"),
            ("update_account_address", "Change the address on the customer's account"),
        )
    ]
    view = ChatView.parse({**asked_then("Yes, go ahead.").raw, "tools": tools})
    policy = Policy.model_validate(local_policy())
    choice = local_engine.decide_sync(view, policy)
    for kind in ("reply", "opening"):
        ranked = choice.trace.ranks[kind]
        assert max(ranked, key=lambda c: ranked[c]) == "cancel_order", (kind, ranked)


def test_after_a_confirmation_asked_again_the_first_one_is_the_agents_reply() -> None:
    """ "Are you sure?" after a first yes names no action: the reply the choice reads is the
    question that did ("Shall I cancel it now?"), the last one otherwise."""
    sure = {"role": "assistant", "content": "This can't be undone. Are you sure? (yes/no)"}
    first = asked_then("Yes please")
    again = ChatView.parse(
        {"model": "a", "messages": [*first.messages, sure, {"role": "user", "content": "yes"}]}
    )
    assert conversation_state(again)["confirm"] == "again"
    assert reply_text(again) == reply_text(first) == "ORD-1001 is pending. Shall I cancel it now?"
    other = ChatView.parse(
        {"model": "a", "messages": [*first.messages, sure, {"role": "user", "content": "why?"}]}
    )
    assert reply_text(other) == sure["content"]
