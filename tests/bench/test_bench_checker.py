"""BFCL's AST rule as reimplemented in bench.bfcl.checker, on hand-written cases."""

from __future__ import annotations

from typing import Any

import pytest

from bench.bfcl.checker import (
    Call,
    check_arguments,
    check_case,
    standardize_string,
)
from bench.bfcl.data import BfclCase, function_to_tool

FUNCTION = {
    "name": "geo.distance",
    "description": "Distance between two cities.",
    "parameters": {
        "type": "dict",
        "required": ["origin", "destination"],
        "properties": {
            "origin": {"type": "string", "description": "From."},
            "destination": {"type": "string", "description": "To."},
            "scale": {"type": "float", "description": "Map scale."},
            "unit": {"type": "string", "enum": ["km", "mi"], "description": "Unit."},
            "stops": {"type": "array", "items": {"type": "integer"}, "description": "Stops."},
            "box": {"type": "tuple", "items": {"type": "float"}, "description": "Box."},
            "opts": {
                "type": "dict",
                "description": "Options.",
                "properties": {"fast": {"type": "boolean", "description": "Fast."}},
            },
        },
    },
}
ANSWER: dict[str, list[Any]] = {
    "origin": ["New York, NY", "NYC"],
    "destination": ["Boston"],
    "scale": [2.0, ""],
    "unit": ["km", ""],
    "stops": [[1, 2], ""],
    "box": [[1.0, 2.5], ""],
    "opts": [{"fast": [True]}, ""],
}
PARAMS = function_to_tool(FUNCTION)["function"]["parameters"]


def case(category: str = "simple_python", answers: Any = "default") -> BfclCase:
    tools = [function_to_tool(FUNCTION)]
    request = {"messages": [{"role": "user", "content": "hi"}], "tools": tools}
    truth = [{"geo.distance": ANSWER}] if answers == "default" else answers
    return BfclCase("x_0", category, request, truth, {"geo_distance": "geo.distance"})


def args(**extra: Any) -> dict[str, Any]:
    return {"origin": "NYC", "destination": "Boston", **extra}


def test_standardize_string_drops_case_spaces_and_punctuation() -> None:
    assert standardize_string("New York, N.Y.") == standardize_string("new york ny")
    assert standardize_string("it's") == 'it"s'


@pytest.mark.parametrize("origin", ["new york ny", "New-York, NY", "nyc", "N.Y.C."])
def test_strings_compared_like_bfcl(origin: str) -> None:
    assert check_arguments(args(origin=origin), ANSWER, PARAMS) is None


def test_wrong_string_value_fails() -> None:
    assert "wrong value" in str(check_arguments(args(origin="Newark"), ANSWER, PARAMS))


def test_int_accepted_for_float() -> None:
    assert check_arguments(args(scale=2), ANSWER, PARAMS) is None


def test_string_not_accepted_for_float() -> None:
    assert "wrong type" in str(check_arguments(args(scale="2.0"), ANSWER, PARAMS))


def test_bool_is_not_an_int() -> None:
    strict = {**ANSWER, "scale": [1.0]}
    assert "wrong type" in str(check_arguments(args(scale=True), strict, PARAMS))


def test_list_items_compared_with_python_equality_like_bfcl() -> None:
    # BFCL's nested type check passes through a variable-style answer, then
    # compares lists with ==, where 1.0 == 1: it accepts these, so do we.
    assert check_arguments(args(stops=[1.0, 2.0]), ANSWER, PARAMS) is None
    assert check_arguments(args(stops=[2, 1]), ANSWER, PARAMS) is not None


def test_tuple_values_compared_as_lists() -> None:
    assert check_arguments(args(box=[1.0, 2.5]), ANSWER, PARAMS) is None
    assert check_arguments(args(box=[2.5, 1.0]), ANSWER, PARAMS) is not None


def test_optional_params_may_be_omitted_only_when_marked() -> None:
    assert check_arguments(args(), ANSWER, PARAMS) is None
    strict = {**ANSWER, "unit": ["km"]}
    assert "optional parameter 'unit'" in str(check_arguments(args(), strict, PARAMS))


def test_missing_required_param_fails() -> None:
    error = check_arguments({"origin": "NYC"}, ANSWER, PARAMS)
    assert error == "missing required parameter 'destination'"


def test_unexpected_param_fails() -> None:
    assert "unexpected" in str(check_arguments(args(mode="car"), ANSWER, PARAMS))


def test_dict_values_checked_key_by_key() -> None:
    assert check_arguments(args(opts={"fast": True}), ANSWER, PARAMS) is None
    assert check_arguments(args(opts={"fast": False}), ANSWER, PARAMS) is not None
    assert check_arguments(args(opts={"slow": True}), ANSWER, PARAMS) is not None


def test_right_call_with_dotted_name_mapped_to_underscore() -> None:
    verdict = check_case(case(), [Call("geo_distance", args())])
    assert (verdict.name_ok, verdict.call_ok, verdict.valid) == (True, True, True)


def test_wrong_name_fails_name_and_call() -> None:
    verdict = check_case(case(), [Call("geo.distance", args())])
    assert not verdict.name_ok and not verdict.call_ok and not verdict.valid


def test_right_name_wrong_args() -> None:
    verdict = check_case(case(), [Call("geo_distance", args(destination="Paris"))])
    assert verdict.name_ok and not verdict.call_ok and verdict.valid


def test_no_call_or_two_calls_fail_a_call_case() -> None:
    assert not check_case(case(), []).name_ok
    assert not check_case(case(), None).valid
    two = [Call("geo_distance", args()), Call("geo_distance", args())]
    assert not check_case(case(), two).call_ok


def test_schema_violation_is_invalid_even_if_ast_passes() -> None:
    verdict = check_case(case(), [Call("geo_distance", args(unit="km", scale="x"))])
    assert not verdict.valid and not verdict.call_ok


def test_irrelevance_right_only_without_a_call() -> None:
    irrelevant = case("irrelevance", None)
    assert check_case(irrelevant, []).call_ok
    assert not check_case(irrelevant, [Call("geo_distance", args())]).call_ok


def test_relevance_right_with_any_call() -> None:
    relevant = case("live_relevance", None)
    assert check_case(relevant, [Call("geo_distance", args(origin="x"))]).call_ok
    assert not check_case(relevant, []).call_ok
