"""BFCL data loading and BFCL's OpenAI schema conversion, on the installed bfcl-eval data."""

from __future__ import annotations

import pytest

from bench.bfcl.data import (
    CATEGORIES,
    PYTHON_HINT,
    convert_schema,
    function_to_tool,
    load_cases,
    parse_call,
    stride_indices,
)


def test_types_mapped_as_bfcl_does_for_openai() -> None:
    assert convert_schema({"type": "dict"})["type"] == "object"
    assert convert_schema({"type": "tuple"})["type"] == "array"
    assert convert_schema({"type": "any"})["type"] == "string"
    assert convert_schema({"description": "no type"})["type"] == "string"
    floaty = convert_schema({"type": "float", "description": "Rate."})
    assert floaty == {"type": "number", "format": "float", "description": floaty["description"]}
    assert floaty["description"].endswith("This is a float type value.")


def test_nested_properties_and_items_converted() -> None:
    schema = {
        "type": "array",
        "items": {"type": "dict", "properties": {"x": {"type": "float", "description": ""}}},
    }
    out = convert_schema(schema)
    assert out["items"]["type"] == "object"
    assert out["items"]["properties"]["x"]["type"] == "number"
    deep = convert_schema({"type": "dict", "properties": {"t": {"type": "tuple"}}})
    assert deep["properties"]["t"]["type"] == "array"


def test_dotted_names_become_underscores_and_hint_added() -> None:
    fn = {"name": "a.b.c", "description": "D.", "parameters": {"type": "dict", "properties": {}}}
    tool = function_to_tool(fn)
    assert tool["type"] == "function"
    assert tool["function"]["name"] == "a_b_c"
    assert tool["function"]["description"] == "D." + PYTHON_HINT
    assert tool["function"]["parameters"]["type"] == "object"
    assert fn["name"] == "a.b.c"  # the input is left alone


def test_stride_sample_is_even_and_deterministic() -> None:
    assert stride_indices(10, 5) == [0, 2, 4, 6, 8]
    assert stride_indices(3, None) == [0, 1, 2]
    assert stride_indices(3, 10) == [0, 1, 2]


@pytest.mark.parametrize("category", CATEGORIES)
def test_load_cases_on_installed_data(category: str) -> None:
    cases = load_cases(category, limit=20)
    assert len(cases) == min(20, len(load_cases(category)))
    assert len({c.id for c in cases}) == len(cases)
    assert [c.id for c in cases] == [c.id for c in load_cases(category, limit=20)]
    for case in cases:
        assert case.category == category and case.id.startswith(category)
        assert case.request["messages"] and case.request["tools"]
        assert set(case.name_map) == {t["function"]["name"] for t in case.tools}
        assert (case.answers is None) == ("relevance" in category)


def test_live_simple_dotted_name_roundtrip() -> None:
    cases = load_cases("live_simple")
    dotted = next(c for c in cases if any("." in v for v in c.name_map.values()))
    bfcl_name = next(iter(dotted.answers[0]))  # type: ignore[index]
    assert bfcl_name in dotted.name_map.values()
    assert "." not in "".join(dotted.name_map)


def test_executable_answers_are_read_from_their_call_strings() -> None:
    assert parse_call("calc(n=20, k=5, p=1/6, point=(1.5, -2), name='AAPL')") == {
        "calc": {"n": [20], "k": [5], "p": [1 / 6], "point": [[1.5, -2]], "name": ["AAPL"]}
    }
    assert parse_call("mean([1, 3])") is None  # positional: no parameter name to check
    assert parse_call("f(x=open('a'))") is None
    case = load_cases("exec_simple")[0]
    assert case.expects_call and case.answers == [
        {"calc_binomial_probability": {"n": [20], "k": [5], "p": [0.6]}}
    ]
