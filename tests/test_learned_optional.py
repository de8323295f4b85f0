"""Whether an optional parameter is set, learned (`learning/optional.py`): pure logic; the
end-to-end test through the proxy is test_learning_optional.py."""

from __future__ import annotations

from typing import Any

from shadowswitch.cli.learning import _learn_line
from shadowswitch.engines.local.learned_state import rankings_of, sets, setting
from shadowswitch.learning.agreement import call_agreed
from shadowswitch.learning.optional import fit_setting, settled
from shadowswitch.learning.rules import learned_constants

NAME, WORD = {"shape:Aa Aa": 1.0}, {"shape:Aa": 1.0}


def record(
    features: dict[str, float], done: str, filled: bool, agrees: dict[str, bool] | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = {"params": {"host": {"features": features, "filled": filled, "set": done}}}
    if agrees is not None:
        out["agrees"] = agrees
    return out


def test_a_parameter_the_upstream_never_sets_is_learned_left_out() -> None:
    # the prior sets the head count from a score of 2.5; this upstream never passes it
    records = [("book", record({"base": 2.0 + i / 10}, "out", 2.0 + i / 10 >= 2.5)) for i in range(20)]
    weights = setting({f"set:{k}": w for k, w in fit_setting(records)["book"]["host"].items()})
    assert not any(sets(weights, {"base": 2.0 + i / 10}) for i in range(40))


def test_the_upstream_sets_it_for_one_kind_of_value_whatever_its_score() -> None:
    # names at 2.2-2.7 are set, room names at 1.7-2.6 left out: no score threshold tells them
    # apart (the prior set none), the value's shape does
    records = [("book", record({"base": 2.2 + i / 20, **NAME}, "top", False)) for i in range(10)]
    records += [("book", record({"base": 1.7 + i / 10, **WORD}, "out", False)) for i in range(10)]
    records = [records[i // 2 + (i % 2) * 10] for i in range(20)]  # interleaved, as a stream is
    weights = fit_setting(records)["book"]["host"]
    assert sets(weights, {"base": 2.3, **NAME}) and not sets(weights, {"base": 2.6, **WORD}), weights


def test_nothing_is_learned_where_the_engine_already_agrees_or_from_too_few() -> None:
    agreeing = [("book", record({"base": 3.0, **NAME}, "top", True)) for _ in range(10)]
    agreeing += [("book", record({"base": 0.5}, "out", False)) for _ in range(10)]
    assert fit_setting(agreeing) == {}
    assert fit_setting([("book", record({"base": 3.0}, "top", False)) for _ in range(4)]) == {}
    # another value than the one the engine fills: neither setting it nor leaving it out agrees
    assert fit_setting([("book", record({"base": 3.0}, "other", False)) for _ in range(10)]) == {}


def test_a_call_that_set_a_parameter_the_upstream_left_out_agrees_once_it_is_left_out() -> None:
    arguments = {"room": {"type": "str", "in_text": True, "local": True}}  # not judged: an extra value
    never = {"host": {"": -5.0}}
    left = record(WORD, "out", True, {"room": True})
    assert settled("differ", arguments, left, never) == (
        "agree",
        {"room": {"type": "str", "in_text": True, "local": True, "agrees": True}},
    )
    assert settled("differ", arguments, left, {"host": {"": 5.0}}) == ("differ", arguments)
    assert settled("differ", arguments, record(WORD, "out", True, {"room": False}), never)[0] == "differ"
    # a value the engine set that the record does not cover: still not judged
    assert settled("differ", arguments, record(WORD, "out", True), never) == ("differ", arguments)


def test_a_value_the_upstream_set_is_filled_once_the_weights_set_it() -> None:
    arguments = {
        "room": {"type": "str", "in_text": True, "local": True, "agrees": True},
        "host": {"type": "str", "in_text": True, "local": False, "agrees": False},
    }
    always = {"host": {"": 5.0}}
    status, after = settled("absent", arguments, record(NAME, "top", False), always)
    assert status == "agree" and after is not None and after["host"]["local"] is True
    assert settled("absent", arguments, record(NAME, "other", False), always)[0] == "differ"


def test_the_replay_counts_a_call_as_the_learned_weights_fill_it() -> None:
    calls: list[tuple[str, Any]] = []
    optional: list[tuple[str, Any]] = []
    for i in range(12):  # the engine sets a host the upstream never passes
        calls.append(("book", {"room": {"type": "str", "in_text": True, "local": True}}))
        optional.append(("book", record({"base": 3.0 + i / 10}, "out", True, {"room": True})))
    learned = learned_constants(calls, optional)
    assert setting(rankings_of(learned["book"])["host"]), learned
    assert call_agreed("book", "book", "differ", calls[0][1], learned, None, optional[0][1]) == 1.0
    assert call_agreed("book", "book", "differ", calls[0][1], {}, None, optional[0][1]) == 0.0


def test_a_parameter_the_upstream_always_sets_is_required_not_learned() -> None:
    # set in every call: the engine fills it or abstains (`usual_parameters`), whatever the weights
    host = {"type": "str", "in_text": True, "local": False, "agrees": False}
    calls = [("book", {"room": {"type": "str", "in_text": True, "local": True}, "host": host})] * 12
    optional = [("book", record({"base": 3.0 + i / 10}, "top", False)) for i in range(12)]
    assert fit_setting(optional)["book"]["host"]  # learned, and set aside
    assert "book" not in learned_constants(calls, optional)


def test_the_learn_line_names_what_was_learned_of_the_values() -> None:
    result = {
        "task_type": "rooms",
        "status": "promoted",
        "served_version": 0,
        "version": 1,
        "rankings": {
            "book_room": {"host": {"set:": -3.1, "set:base": 1.2}, "room": {"base": 0.4}},
            "*": {"*": {"memory": 1.0}},  # the pointer's weights: not a parameter's
        },
        "transforms": {"weather": {"city": "region"}},
    }
    line = _learn_line(result)
    assert line.endswith(
        "\nlearned values ranked: book_room.room; optional ones set per request: book_room.host;"
        " rewritten: weather.city (region)"
    ), line
    assert "\nlearned" not in _learn_line({**result, "rankings": {}, "transforms": {}})
