"""Learning judges the whole call: the memory's neighbours gate what is served by how often the
engine's arguments agreed, promotion weighs a wrong answer far above an abstention, and a pair
whose arguments the engine never filled is not judged on them."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from shadowswitch.analysis.sequential import ALPHA, betting_wealth, confidence_sequence
from shadowswitch.engines.base import Choice, ChoiceTrace
from shadowswitch.learning.exemplar import build_exemplar
from shadowswitch.learning.fit import Outcome, Pair, at, decide, fit
from shadowswitch.learning.memory import Memory, floor_for, purposes, tool_prior, tool_rates
from shadowswitch.learning.utility_gate import compare
from shadowswitch.request import ChatView

DIM = 32
TOOLS = ("get_weather", "get_forecast", "__no_tool__")


def unit(v: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    out: np.ndarray[Any, Any] = (v / np.linalg.norm(v)).astype(np.float32)
    return out


def kinds(rng: np.random.Generator, n: int) -> np.ndarray[Any, Any]:
    return np.stack([unit(rng.normal(size=DIM)) for _ in range(n)])


def near(centre: np.ndarray[Any, Any], rng: np.random.Generator) -> np.ndarray[Any, Any]:
    return unit(centre + rng.normal(scale=0.08, size=DIM))


def pairs_with_a_bad_kind(seed: int, n: int = 150) -> tuple[list[Pair], np.ndarray[Any, Any]]:
    """Three kinds of request; the zero-shot ranking always picks the upstream's tool (confident),
    but for kind 1 the engine's arguments always differ from the upstream's (a value it rewrites)."""
    rng = np.random.default_rng(seed)
    centres = kinds(rng, 3)
    pairs = []
    for i in range(n):
        kind = i % 3
        label = TOOLS[kind]
        zero_shot = {t: (0.8 if t == label else 0.1) for t in TOOLS}
        status = "none" if label == TOOLS[2] else "differ" if kind == 1 else "agree"
        pairs.append(Pair(i, near(centres[kind], rng), label, zero_shot, label, status))
    return pairs, centres


def test_the_whole_call_gates_what_is_served() -> None:
    pairs, _ = pairs_with_a_bad_kind(1)
    fitted = fit(pairs, target=0.95)
    outcomes = decide(pairs, pairs, fitted.weight, 0.5)
    point = at(outcomes, fitted.min_confidence)
    assert point["agreement"] >= 0.95 and 0.55 < point["coverage"] < 0.7  # kinds 0 and 2 only
    kind1 = [o for p, o in zip(pairs, outcomes, strict=True) if p.label == TOOLS[1]]
    assert all(o.confidence < fitted.min_confidence for o in kind1)
    without_memory = at(decide(pairs, [], 0.0, 0.5), 0.5)  # the tool alone would serve all of them
    assert without_memory["coverage"] == 1.0 and without_memory["agreement"] < 0.7


def test_the_served_memory_gates_by_its_neighbours_calls() -> None:
    pairs, centres = pairs_with_a_bad_kind(2)
    rng = np.random.default_rng(3)
    calls = np.array(
        [1.0 if p.args_status == "agree" else 0.0 if p.args_status == "differ" else math.nan for p in pairs]
    )
    memory = Memory(
        1,
        "all-MiniLM-L6-v2",
        np.stack([p.vector for p in pairs]),
        np.array([p.label for p in pairs], dtype=object),
        0.5,
        0.6,
        calls=calls,
        call_prior=0.7,
    )
    good, bad = memory.similarities(near(centres[0], rng)), memory.similarities(near(centres[1], rng))
    assert memory.call_rate(good, TOOLS[0]) > 0.85
    assert memory.call_rate(bad, TOOLS[1]) < 0.15
    assert memory.call_rate(bad, TOOLS[2]) == 1.0  # no arguments to get wrong
    far = memory.similarities(unit(-centres.sum(axis=0)))
    agreed, judged = memory.tally[TOOLS[0]]
    assert judged > 20 and agreed == judged  # the good kind's calls all agreed
    assert memory.call_rate(far, TOOLS[0]) == tool_prior(agreed, judged, 0.7) > 0.95  # no neighbour: record
    agreed, judged = memory.tally[TOOLS[1]]
    assert memory.call_rate(far, TOOLS[1]) == tool_prior(agreed, judged, 0.7) < 0.7  # a poor record
    assert memory.call_rate(far, "never_called") == 0.7  # no record: the task type's rate
    assert floor_for("multilingual-e5-small.q4") > floor_for("all-MiniLM-L6-v2")


def outcomes(spec: list[tuple[bool, float]]) -> tuple[list[Outcome], list[bool]]:
    """(served, correct) per held-out pair."""
    return [Outcome(0.9, 0.5, c, False) for _, c in spec], [s for s, _ in spec]


def test_a_challenger_that_abstains_where_the_prior_was_wrong_is_promoted() -> None:
    # 30 held-out pairs: the prior serves all, 8 of them wrong; the challenger abstains on those
    # 8 and on 6 it would have got right. A sign test sees 8 wins to 6 losses: no evidence.
    prior = [(True, 0.0)] * 8 + [(True, 1.0)] * 22
    better = [(False, 0.0)] * 8 + [(False, 1.0)] * 6 + [(True, 1.0)] * 16
    order = np.random.default_rng(4).permutation(30)
    prior, better = [prior[i] for i in order], [better[i] for i in order]
    verdict = compare(outcomes(better), outcomes(prior), target=0.9)
    assert (verdict["wins"], verdict["losses"]) == (8, 6)
    assert confidence_sequence(8, 14)[0] < 0.5  # what the sign test would have said
    assert verdict["promote"] is True and verdict["wealth"] >= 1 / ALPHA, verdict
    assert verdict["challenger"]["agreement"] == 1.0 and verdict["challenger"]["coverage"] < 0.6


def test_a_worse_challenger_is_not_promoted_and_says_why() -> None:
    prior = [(True, 1.0)] * 27 + [(True, 0.0)] * 3
    worse = [(True, 1.0)] * 24 + [(True, 0.0)] * 6  # serves as much, gets more wrong
    verdict = compare(outcomes(worse), outcomes(prior), target=0.9)
    assert verdict["promote"] is False
    assert verdict["why_not"].startswith("no evidence it is better") and "wealth" in verdict["why_not"]
    plain = compare(outcomes([(True, 0.0)] * 10 + [(True, 1.0)] * 20), outcomes([(True, 0.0)] * 30), 0.95)
    assert plain["promote"] is False and "plainly below 0.95" in plain["why_not"]  # better, still bad


def test_betting_wealth_stays_low_on_noise() -> None:
    rng = np.random.default_rng(5)
    passed = sum(betting_wealth(rng.uniform(-1, 1, size=200).tolist()) >= 1 / ALPHA for _ in range(200))
    assert passed <= 200 * ALPHA  # a mean of 0: it may pass by luck at most 5% of the time


def tool_call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    call = {"id": "c", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def test_a_call_the_engine_never_filled_is_not_judged_on_its_arguments() -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": schema}}]
    request = ChatView.parse(
        {"model": "m", "messages": [{"role": "user", "content": "Weather in Oslo?"}], "tools": tools}
    )
    ranked = ChoiceTrace(
        vector=unit(np.ones(DIM)).tobytes(), encoder="e", zero_shot={"get_weather": 0.4, "__no_tool__": 0.6}
    )
    unfilled = Choice("tool", "get_weather", abstain_reason="low_confidence 0.40 < 0.5", trace=ranked)
    upstream = tool_call("get_weather", {"city": "Oslo"})
    row = build_exemplar("t", "d1", request, unfilled, upstream)
    assert row is not None and row.args_status == "unknown"  # was 'absent': counted as wrong
    filled = Choice("tool", "get_weather", arguments={"city": "Oslo"})
    row = build_exemplar("t", "d1", request, unfilled, upstream, filled)
    assert row is not None and row.args_status == "agree"
    rewritten = Choice("tool", "get_weather", arguments={"city": "Bergen"})
    row = build_exemplar("t", "d1", request, unfilled, upstream, rewritten)
    assert row is not None and row.args_status == "differ"


def test_parameters_the_upstream_always_sets_become_required() -> None:
    from shadowswitch.engines.local.arguments.learned import with_usual
    from shadowswitch.learning.rules import learned_constants, usual_parameters

    said = {"type": "str", "in_text": True}
    calls: list[tuple[str, dict[str, Any] | None]] = [
        (
            "get_weather",
            {"city": said, "unit": said, "units": {"type": "str", "in_text": False, "value": "si"}},
        )
    ] * 6
    calls += [("get_weather", {"city": said, "units": {"type": "str", "in_text": False, "value": "si"}})]
    calls += [("__no_tool__", None)] * 6
    usual = usual_parameters(calls)
    assert usual == {"get_weather": ["city", "units"]}  # `unit` in 6 of 7 calls: not always
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": "string"}, "units": {"type": "string"}},
        "required": [],
    }
    memory = Memory(1, "e", np.zeros((0, DIM)), np.array([], dtype=object), 0.5, 0.5)
    memory.constants, memory.usual = learned_constants(calls), usual
    asked = with_usual(schema, memory, "get_weather")
    assert asked["required"] == ["city"]  # `units` is a learned constant: supplied, not asked
    assert schema["required"] == [] and with_usual(schema, memory, "other") is schema


def test_a_young_task_type_is_judged_on_cross_fitted_blocks() -> None:
    from shadowswitch.learning.challenger import ENOUGH, Spec, cross_fitted

    prior = Spec(0, [], 0.0, 0.5, 0.05)
    pairs, _ = pairs_with_a_bad_kind(6, n=100)
    newest = fit(pairs[:75], 0.95)
    challenger, served, blocks = cross_fitted(pairs, 25, (prior, pairs), (newest, list), 0.95, 0.6)
    assert blocks == 4 and len(challenger[0]) == len(served[0]) == len(pairs)  # each judged once
    verdict = compare(challenger, served, 0.95)
    assert verdict["promote"] is True, verdict  # the prior serves kind 1's wrong calls
    many, _ = pairs_with_a_bad_kind(7, n=ENOUGH + 100)  # ENOUGH fresh pairs: the newest block alone
    assert cross_fitted(many, ENOUGH, (prior, many), (fit(many[:100], 0.95), list), 0.95, 0.6)[2] == 1
    some = many[: ENOUGH // 2 + 50]  # fewer: earlier blocks judged too, up to ENOUGH pairs in all
    judged = cross_fitted(some, 50, (prior, some), (fit(some[:-50], 0.95), list), 0.95, 0.6)
    assert judged[2] == len(some) // 50 and len(judged[0][0]) == len(some)


def turns_ending_in_text(seed: int, n: int = 120) -> list[Pair]:
    """An agent's steps: a call, then, once its result is back, a text answer to the same user
    turn (the same vector: the engine reads the same turn, and ranks the same tool first)."""
    rng = np.random.default_rng(seed)
    centres = kinds(rng, 2)
    pairs = []
    for i in range(0, n, 2):
        tool = TOOLS[(i // 2) % 2]
        vector = near(centres[(i // 2) % 2], rng)
        zero_shot = {t: (0.8 if t == tool else 0.1) for t in TOOLS}
        pairs.append(Pair(i, vector, tool, zero_shot, tool, "agree"))
        pairs.append(Pair(i + 1, vector, TOOLS[2], zero_shot, tool, "none", blocked=frozenset({tool})))
    return pairs


def test_a_tool_already_called_this_turn_is_an_abstention_not_a_wrong_answer() -> None:
    pairs = turns_ending_in_text(3)
    zero_shot_alone = decide(pairs, pairs, 0.0, 0.5)  # the text steps: the tool again, refused
    assert all(o.blocked for p, o in zip(pairs, zero_shot_alone, strict=True) if p.blocked)
    assert at(zero_shot_alone, 0.5) == {"threshold": 0.5, "served": 60, "agreement": 1.0, "coverage": 0.5}
    # Neighbours at the same point of their turn: after the call, the upstream answered in text.
    fitted = fit(pairs, target=0.95)
    point = at(decide(pairs, pairs, fitted.weight, 0.5), fitted.min_confidence)
    assert fitted.weight > 0 and point["agreement"] >= 0.95 and point["coverage"] >= 0.9
    # Judged as if the engine answered the text steps with the tool again, the same traffic
    # would look half wrong, and the threshold fitted to the target would serve next to nothing.
    unaware = [Pair(p.id, p.vector, p.label, p.zero_shot, p.local_tool, p.args_status) for p in pairs]
    assert fit(unaware, target=0.95).coverage < 0.1


def test_the_next_look_up_of_a_walk_is_judged_as_the_engine_serves_it() -> None:
    """The decider serves a tool called this turn again while a list of ids is walked; the
    evaluation judges that step as served (right or wrong), not as an abstention."""
    rng = np.random.default_rng(3)
    vector = unit(rng.normal(size=DIM))
    zero_shot = {"get_weather": 0.9, "get_forecast": 0.05, "__no_tool__": 0.05}
    called, walk = frozenset({"get_weather"}), {"open_walks": 1}
    walking = Pair(1, vector, "get_weather", zero_shot, "get_weather", "agree", blocked=called, turn=walk)
    done = Pair(2, vector, "__no_tool__", zero_shot, "get_weather", "none", blocked=called, turn=walk)
    repeated = Pair(3, vector, "get_weather", zero_shot, "get_weather", "agree", blocked=called)
    walked, wrong, refused = decide([walking, done, repeated], [], 0.0, 0.5)
    assert not walked.blocked and walked.correct == 1.0
    assert not wrong.blocked and wrong.correct == 0.0  # served, and wrong: it counts against
    assert refused.blocked  # no walk: `repeated_call`, an abstention


def test_the_exemplar_keeps_the_tools_already_called_this_turn(tmp_path: Any) -> None:
    import anyio

    from shadowswitch.learning.recorder import Learning
    from shadowswitch.learning.served import ServedMemories
    from shadowswitch.policy.models import Policy
    from shadowswitch.store import db
    from shadowswitch.store.exemplars import ExemplarStore

    url = f"sqlite:///{tmp_path / 'x.db'}"
    db.upgrade(url)
    store = ExemplarStore(db.make_engine(url))
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    tools = [{"type": "function", "function": {"name": n, "parameters": schema}} for n in TOOLS[:2]]
    messages = [
        {"role": "user", "content": "Weather in Oslo?"},
        tool_call("get_weather", {"city": "Oslo"}),
        {"role": "tool", "tool_call_id": "c", "content": '{"temp": 3}'},
    ]
    request = ChatView.parse({"model": "m", "messages": messages, "tools": tools})
    zero_shot = {"get_weather": 0.7, "get_forecast": 0.2, "__no_tool__": 0.1}
    again = Choice(
        "tool",
        "get_weather",
        abstain_reason="repeated_call: get_weather was already called for this user turn",
        trace=ChoiceTrace(vector=unit(np.ones(DIM)).tobytes(), encoder="e", zero_shot=zero_shot),
    )
    text = {"role": "assistant", "content": "It is 3 degrees in Oslo."}
    learning = Learning(store, ServedMemories(store))
    anyio.run(learning.observe, Policy(task_type="t"), "d1", request, again, text)
    (row,) = store.load("t", "e")
    assert row.label == "__no_tool__" and row.blocked == ["get_weather"]


def memory_of(pairs: list[Pair], weight: float, **more: Any) -> Memory:
    """A served memory whose exemplars are `pairs`."""
    vectors, labels = np.stack([p.vector for p in pairs]), np.array([p.label for p in pairs], dtype=object)
    return Memory(1, "e", vectors, labels, weight=weight, min_confidence=0.5, **more)


def test_the_served_memory_votes_with_exemplars_at_the_same_point_of_their_turn() -> None:
    pairs = turns_ending_in_text(4, n=20)
    memory = memory_of(pairs, 0.8, turns=np.array(["|".join(sorted(p.blocked)) for p in pairs], dtype=object))
    step = pairs[0]  # a call step of get_weather; its text step shares its vector
    fresh = memory.mix(memory.similarities(step.vector), step.zero_shot)
    after = memory.mix(memory.similarities(step.vector, {"get_weather"}), step.zero_shot)
    assert max(fresh, key=fresh.__getitem__) == "get_weather"
    assert max(after, key=after.__getitem__) == "__no_tool__"


def test_neighbours_are_alike_in_the_user_words_and_in_what_the_conversation_is_about() -> None:
    """Once a customer's record is read, every customer's last words look the same ("It's Ann
    Lee, zip 97652"); their opening words (an order's status, or a person to talk to) decide the
    next step, in the served memory and in learning's own evaluation alike."""
    rng = np.random.default_rng(3)
    said, order, person = kinds(rng, 3)
    zero_shot = {"get_order": 0.5, "transfer_to_human": 0.3, "__no_tool__": 0.2}
    pairs = [
        Pair(i, near(said, rng), label, zero_shot, label, "agree", opening=near(about, rng))
        for i in range(12)
        for label, about in ((("get_order", order),) if i < 9 else (("transfer_to_human", person),))
    ]
    memory = memory_of(pairs, 0.9, purposes=purposes(pairs, DIM))
    asked = near(said, rng)
    for about, expected in ((order, "get_order"), (person, "transfer_to_human")):
        mixed = memory.mix(memory.similarities(asked, opening=near(about, rng)), zero_shot)
        assert max(mixed, key=mixed.__getitem__) == expected
    # learning's evaluation reads the same neighbours: each pair decided by the others
    outcomes = decide(pairs, pairs, 0.9, 1.0)
    assert all(o.correct == 1.0 for o in outcomes)
    # without the opening, the words alone cannot tell the hand-overs from the look-ups
    blind = [Pair(p.id, p.vector, p.label, zero_shot, p.label, "agree") for p in pairs]
    assert sum(o.correct for o in decide(blind, blind, 0.9, 1.0)[9:]) < 3


def test_a_tool_whose_calls_rarely_agreed_is_not_served() -> None:
    """The served memory holds back a write whose values the engine never read right, however sure
    the choice, and a tool no pair has judged yet; a look-up whose calls agreed it does not."""
    labels = np.array(["get_order"] * 20 + ["update_address"] * 4 + ["__no_tool__"] * 4, dtype=object)
    calls = np.array([1.0] * 20 + [0.0, math.nan, math.nan, math.nan] + [math.nan] * 4)
    rates = tool_rates(labels, calls)
    assert rates["get_order"] > 0.95 and rates["update_address"] < 0.3 and "__no_tool__" not in rates
    memory = Memory(1, "e", kinds(np.random.default_rng(5), len(labels)), labels, 0.5, 0.6, calls=calls)
    assert memory.unproven("update_address") and memory.unproven("cancel_order")  # wrong; never judged
    assert not memory.unproven("get_order")


def test_a_tool_not_yet_judged_is_expected_to_do_as_a_typical_tool_not_a_typical_call() -> None:
    """Forty look-ups that agreed and one write that did not: a call agrees 40 times in 41, a tool
    half the time; the rate a tool without a record starts from is the tool's."""
    from shadowswitch.learning.fit import args_rate

    vec = np.zeros(4, dtype=np.float32)
    look_ups = [Pair(i, vec, "get_order", {}, "get_order", "agree") for i in range(40)]
    write = Pair(40, vec, "cancel_order", {}, "cancel_order", "differ")
    rate = args_rate([*look_ups, write])
    assert rate == (40.5 / 41 + 0.5 / 2) / 2
    assert args_rate([]) == 0.5
