"""The trained choice head and the deferral, as pure logic on vectors (no models): it learns a
sequence from the request's state, starts as the zero-shot ranking, and survives storage."""

from __future__ import annotations

from typing import Any

import numpy as np

from shadowswitch.engines.local.learned_state import Request
from shadowswitch.learning import deferral
from shadowswitch.learning.fit import Pair, fit
from shadowswitch.learning.head import Head, train
from shadowswitch.learning.head_features import FEATURES
from shadowswitch.learning.phrasings import cross_predict
from shadowswitch.learning.state_counts import StateCounts
from shadowswitch.learning.usage import Usage

DIM = 24
ZERO_SHOT = {"search_flights": 0.5, "book_flight": 0.3, "__no_tool__": 0.2}


def unit(v: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    return (v / np.linalg.norm(v)).astype(np.float32)


def booking_turns(n: int, seed: int = 0, noise: float = 0.05) -> list[Pair]:
    """The same kind of user text at three steps of its turn: search, then book, then text
    (`noise`: how differently users word it)."""
    rng = np.random.default_rng(seed)
    base = unit(rng.normal(size=DIM))
    pairs = []
    for i in range(n):
        q = unit(base + noise * rng.normal(size=DIM))
        step = i % 3
        label = ("search_flights", "book_flight", "__no_tool__")[step]
        called = frozenset(("search_flights", "book_flight")[:step])
        last = (None, "search_flights", "book_flight")[step]
        status = "none" if label == "__no_tool__" else "agree"  # the engine's arguments agreed
        pairs.append(Pair(i, q, label, ZERO_SHOT, label, status, None, called, last, False, step))
    return pairs


def test_the_same_text_gets_the_next_tool_once_the_first_has_run() -> None:
    head = train(booking_turns(60))
    query = booking_turns(3, seed=1)
    chosen = [max(probs, key=lambda c: probs[c]) for probs in head.predict_many(query)]
    assert chosen == ["search_flights", "book_flight", "__no_tool__"]


def test_cross_validated_predictions_never_see_their_own_pair() -> None:
    pairs = booking_turns(60)
    probs = cross_predict(pairs)
    right = sum(max(p, key=lambda c: p[c]) == pair.label for p, pair in zip(probs, pairs, strict=True))
    assert right >= 55  # the sequence generalises across folds
    assert all(set(p) == set(ZERO_SHOT) for p in probs)


def test_with_no_evidence_the_head_is_the_zero_shot_ranking() -> None:
    """Labels that carry nothing the features know (a coin toss): it stays near zero-shot."""
    rng = np.random.default_rng(3)
    pairs = [
        Pair(i, unit(rng.normal(size=DIM)), str(rng.choice(list(ZERO_SHOT))), ZERO_SHOT, None, "none")
        for i in range(6)
    ]
    probs = train(pairs).predict(Request(unit(rng.normal(size=DIM)), ZERO_SHOT))
    assert max(probs, key=lambda c: probs[c]) == "search_flights"


def test_unknown_candidates_score_by_the_shared_features() -> None:
    head = train(booking_turns(30))
    offered = {"cancel_booking": 0.7, "search_flights": 0.2, "__no_tool__": 0.1}
    probs = head.predict(Request(booking_turns(1)[0].vector, offered))
    assert set(probs) == set(offered)
    assert abs(sum(probs.values()) - 1) < 1e-9


def test_a_stored_head_predicts_the_same() -> None:
    head = train(booking_turns(30))
    again = Head.from_bytes(head.to_bytes())
    query = booking_turns(3, seed=2)
    assert head.predict_many(query) == again.predict_many(query)


def test_fit_chooses_the_head_where_it_serves_more() -> None:
    """Zero-shot ranks search first at every step, and users word it too differently for
    neighbours to vote: only the head, reading the state, serves the later steps."""
    fitted = fit(booking_turns(90, noise=1.0), target=0.95)
    assert fitted.head is not None
    assert fitted.coverage > 0.9
    assert fitted.agreement is not None and fitted.agreement >= 0.95


def test_deferral_probabilities_follow_agreement() -> None:
    rng = np.random.default_rng(4)
    p = rng.uniform(0.2, 1.0, size=300)
    X = np.array([deferral.features(float(x), 0.1, 0.3, True, 1.0, False, False) for x in p])
    y = (rng.uniform(size=300) < p).astype(float)  # agreement as likely as p
    model = deferral.train(X, y)
    low, high = model.probability(X[p.argmin()]), model.probability(X[p.argmax()])
    assert low < 0.45 < 0.85 < high
    assert deferral.Deferral.from_json(model.to_json()) == model


LOOKUP = {"find_user": 0.4, "reset_password": 0.35, "__no_tool__": 0.25}


def lookup_turns(turns: int, seed: int = 0) -> list[Pair]:
    """Two kinds of request both start with a look-up; then one resets a password and the other
    is answered in text ("who is Ann?"): what follows the look-up depends on the words."""
    rng = np.random.default_rng(seed)
    kinds = [unit(rng.normal(size=DIM)) for _ in range(2)]
    pairs: list[Pair] = []
    for t in range(turns):
        kind = t % 2
        q = unit(kinds[kind] + 0.3 * rng.normal(size=DIM))
        after = "reset_password" if kind == 0 else "__no_tool__"
        for step, label in enumerate(("find_user", after)):
            called = frozenset(("find_user",)[:step])
            last = (None, "find_user")[step]
            pairs.append(Pair(len(pairs), q, label, LOOKUP, label, "agree", None, called, last, False, step))
    return pairs


def test_what_follows_a_step_is_learned_from_the_words_at_that_step() -> None:
    pairs = lookup_turns(24)
    probs = cross_predict(pairs)
    after = [(p, pair) for p, pair in zip(probs, pairs, strict=True) if pair.step == 1]
    right = sum(max(p, key=lambda c: p[c]) == pair.label for p, pair in after)
    assert right >= 0.9 * len(after), right


def test_a_head_stored_before_the_state_usage_still_predicts() -> None:
    head = train(booking_turns(30))
    old = Head(head.vocab, head.W, head.b, head.U, head.usage, head.transitions, head.T, head.theta[:-2])
    again = Head.from_bytes(old.to_bytes())
    assert len(again.theta) == len(head.theta) and list(again.theta[-2:]) == [0.0, 0.0]
    probs = again.predict(booking_turns(1, seed=5)[0])
    assert abs(sum(probs.values()) - 1) < 1e-9


def test_a_state_usage_vector_leaves_its_own_example_out_in_training() -> None:
    """The usage vector of "reset_password after find_user" is the mean of the queries that chose
    it there; an example's own query is left out of it, as it would be for a new request."""
    pairs = [p for p in lookup_turns(6) if p.step == 1 and p.label == "reset_password"]
    key = "find_user\x1freset_password"
    queries = np.stack([p.vector for p in pairs])
    usage = Usage.of(pairs, [key], lambda e: f"{e.last_tool}\x1f{e.label}", queries)
    first, rest = pairs[0], pairs[1:]
    others = np.sum([p.vector for p in rest], axis=0)
    expected = float(first.vector @ others / np.linalg.norm(others))
    cosines = queries @ usage.unit.T
    assert abs(usage.cosine(first.vector, 0, 0, cosines, own=True) - expected) < 1e-5
    assert usage.cosine(first.vector, 0, 0, cosines, own=False) > expected  # its own query pulls it closer
    assert usage.cosine(first.vector, 0, -1, cosines, own=False) == 0.0  # a key never chosen: no vector


def test_the_agents_last_reply_says_which_tool_the_users_yes_asks_for() -> None:
    """The user's words are the same ("yes"); the question they answer differs: the head reads the
    agent's reply (`context`) and tells the cancel from the address change. Without the reply it
    cannot, and a head stored before it read one predicts as it did."""
    rng = np.random.default_rng(5)
    yes, cancel_q, move_q = (unit(rng.normal(size=DIM)) for _ in range(3))
    offered = {"cancel_order": 0.4, "change_address": 0.4, "__no_tool__": 0.2}

    def turn(i: int, label: str, question: np.ndarray[Any, Any] | None) -> Pair:
        q = unit(yes + 0.05 * rng.normal(size=DIM))
        reply = None if question is None else unit(question + 0.05 * rng.normal(size=DIM))
        return Pair(i, q, label, offered, label, "agree", context=reply)

    pairs = [turn(i, *(("cancel_order", cancel_q), ("change_address", move_q))[i % 2]) for i in range(40)]
    head = train(pairs)
    for label, question in (("cancel_order", cancel_q), ("change_address", move_q)):
        q = unit(yes + 0.05 * rng.normal(size=DIM))
        probs = head.predict(Request(q, offered, context=unit(question + 0.05 * rng.normal(size=DIM))))
        assert max(probs, key=lambda c: probs[c]) == label
        assert probs[label] > 0.8
    blind = train([turn(i, p.label, None) for i, p in enumerate(pairs)])
    probs = blind.predict(Request(unit(yes), offered, context=unit(cancel_q)))
    assert max(probs.values()) < 0.6  # the words alone cannot tell them apart
    old = Head.from_bytes(head.to_bytes())
    assert old.Wc.shape == head.W.shape


def test_the_users_opening_words_say_what_follows_their_identity() -> None:
    """After the customer's record is read, the user's last words are their email either way; what
    they opened with says whether an order is looked up next or the agent asks in text. The head
    reads the opening (`opening`) and tells them apart; a head stored before it did reads it as 0."""
    rng = np.random.default_rng(7)
    email, send_back, new_address = (unit(rng.normal(size=DIM)) for _ in range(3))
    offered = {"get_order": 0.4, "update_address": 0.3, "__no_tool__": 0.3}

    def turn(i: int, label: str, opening: np.ndarray[Any, Any]) -> Pair:
        q = unit(email + 0.05 * rng.normal(size=DIM))
        said = unit(opening + 0.05 * rng.normal(size=DIM))
        return Pair(i, q, label, offered, label, "agree", last_tool="get_customer", opening=said)

    kinds = (("get_order", send_back), ("__no_tool__", new_address))
    head = train([turn(i, *kinds[i % 2]) for i in range(40)])
    for label, opening in kinds:
        asked = Request(unit(email), offered, last_tool="get_customer", opening=unit(opening))
        probs = head.predict(asked)
        assert max(probs, key=lambda c: probs[c]) == label
        assert probs[label] > 0.8
    stored = Head.from_bytes(head.to_bytes())
    assert np.allclose(stored.Wo, head.Wo) and stored.Wo.shape == head.W.shape
    older = Head.from_bytes(head.to_bytes())
    older.Wo = np.zeros((0, 0), np.float32)  # stored before it read the opening
    probs = older.predict(Request(unit(email), offered, last_tool="get_customer", opening=unit(send_back)))
    assert max(probs.values()) < 0.8


def test_a_state_the_upstream_always_follows_the_same_way_grows_sure() -> None:
    """After `search_flights` the upstream books, every time, whatever the words: the state's
    counts say so (leaving each training pair's own label out), and the head grows sure of it."""
    pairs = booking_turns(150, noise=1.0)
    counts = StateCounts.of(pairs)
    after_search = pairs[1]
    offered = list(ZERO_SHOT)
    book = offered.index("book_flight")
    share = counts.log_shares(after_search, offered, leave_out=False)[book]
    left_out = counts.log_shares(after_search, offered, leave_out=True)[book]
    assert share > left_out > np.log(0.95)  # 50 of 50, smoothed; 49 of 49 without its own
    unseen = Pair(999, pairs[0].vector, "book_flight", ZERO_SHOT, None, "none", last_tool="cancel_booking")
    assert counts.log_shares(unseen, offered, leave_out=False) == [np.log(1 / 3)] * 3
    head = train(pairs)
    assert head.theta[FEATURES.index("state_share")] > 0
    query = booking_turns(3, seed=7, noise=1.0)
    assert head.predict(query[1])["book_flight"] >= 0.95
    again = Head.from_bytes(head.to_bytes())  # the counts survive storage
    assert again.predict_many(query) == head.predict_many(query)
