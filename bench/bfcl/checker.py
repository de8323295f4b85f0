"""BFCL's AST rule, reimplemented: is a predicted tool call right for a case?

Mirrors `bfcl_eval/eval_checker/ast_eval/ast_checker.py` (Python language,
OpenAI-style names with dots as underscores) and the relevance rule of
`eval_runner.py`: irrelevance is right iff there is no call, relevance iff
there is one. Pure functions; parameter types come from the request's JSON
schema, whose types map one to one onto BFCL's Python types.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, cast

import jsonschema

from bench.bfcl.data import BfclCase, openai_name

# JSON-schema type (and BFCL's own names, for raw docs) → the Python type BFCL expects.
PYTHON_TYPES: dict[str, type] = {
    "string": str,
    "integer": int,
    "number": float,
    "float": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "object": dict,
    "dict": dict,
    "any": str,
}


@dataclass(frozen=True)
class Call:
    """One predicted tool call, arguments already parsed from JSON."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Verdict:
    """How one case's output scored: BFCL's AST result plus validity against the schema."""

    name_ok: bool
    call_ok: bool
    valid: bool
    error: str | None = None


def standardize_string(text: str) -> str:
    """BFCL: drop spaces and ,./-_*^, lowercase, single quotes → double quotes."""
    return re.sub(r"[ \,\.\/\-\_\*\^]", "", text).lower().replace("'", '"')


def _std(value: Any) -> Any:
    return standardize_string(value) if type(value) is str else value


def _answer_type(acceptable: list[Any]) -> type | None:
    """The type of the first non-optional acceptable value ("" marks optional)."""
    return next((type(a) for a in acceptable if a != ""), None)


def type_check(value: Any, acceptable: list[Any], expected: type, nested: type | None) -> tuple[bool, bool]:
    """BFCL's type_checker → (type ok, value is a 'variable' given as the answer's type)."""
    answer_type = _answer_type(acceptable)
    is_variable = answer_type is not None and answer_type is not expected
    if type(value) is expected:
        if nested is None:
            return True, is_variable
        items = cast(list[Any], value)
        for option in acceptable:
            items_ok = not isinstance(option, list) or all(
                type_check(v, option, nested, None)[0] for v in items
            )
            if items_ok:
                return True, is_variable
    if answer_type is not None and type(value) is answer_type:
        return True, True
    return False, is_variable


def _list_options(acceptable: list[Any]) -> list[list[Any]]:
    """Acceptable list values; BFCL's loops turn the optional marker "" into []."""
    return [
        option if isinstance(option, list) else []
        for option in acceptable
        if option == "" or isinstance(option, list)
    ]


def check_string(value: str, acceptable: list[Any]) -> bool:
    """Strings match after standardisation (case, spaces and punctuation ignored)."""
    return standardize_string(value) in [_std(a) for a in acceptable if type(a) is str]


def check_list(value: list[Any], acceptable: list[Any]) -> bool:
    """Lists match element-wise, string elements standardised, order kept."""
    std_value = [_std(v) for v in value]
    return std_value in [[_std(a) for a in option] for option in _list_options(acceptable)]


def check_dict(value: dict[str, Any], acceptable: list[Any]) -> bool:
    """One acceptable dict must take every key of `value` and miss only optional keys."""
    for option in acceptable:
        if option == "" or not isinstance(option, dict):
            continue
        keys_ok = all(k in option and _std(v) in [_std(a) for a in option[k]] for k, v in value.items())
        missing = any(k not in value and "" not in opts for k, opts in option.items())
        if keys_ok and not missing:
            return True
    return False


def check_list_of_dicts(value: list[Any], acceptable: list[Any]) -> bool:
    """Same length and each dict matches its counterpart, in order."""
    for option in _list_options(acceptable):
        if len(option) != len(value):
            continue
        pairs = zip(value, option, strict=True)
        if all(isinstance(v, dict) and check_dict(v, [o]) for v, o in pairs):
            return True
    return False


def _value_ok(value: Any, acceptable: list[Any], expected: type, nested: type | None) -> bool:
    if expected is dict and type(value) is dict:
        return check_dict(value, acceptable)
    if expected is list and nested is dict and type(value) is list:
        return check_list_of_dicts(value, acceptable)
    if expected is str and type(value) is str:
        return check_string(value, acceptable)
    if expected is list and type(value) is list:
        return check_list(value, acceptable)
    return value in acceptable


def check_param(name: str, value: Any, acceptable: list[Any], schema: dict[str, Any]) -> str | None:
    """One parameter against its acceptable values; the error message, or None when right."""
    expected = PYTHON_TYPES.get(str(schema.get("type")), str)
    nested = None
    if expected is list and isinstance(schema.get("items"), dict):
        nested = PYTHON_TYPES.get(str(schema["items"].get("type")), str)
    if schema.get("type") in ("number", "float") and type(value) is int:
        value = float(value)  # BFCL allows Python's int → float
    type_ok, is_variable = type_check(value, acceptable, expected, nested)
    if not type_ok:
        return f"wrong type for {name!r}: {type(value).__name__}"
    ok = value in acceptable if is_variable else _value_ok(value, acceptable, expected, nested)
    return None if ok else f"wrong value for {name!r}: {value!r}, expected one of {acceptable}"


def check_arguments(
    arguments: dict[str, Any], answer: dict[str, list[Any]], parameters: dict[str, Any]
) -> str | None:
    """BFCL's simple_function_checker, after the name: the first error, or None."""
    properties = parameters.get("properties", {})
    for param in parameters.get("required", []):
        if param not in arguments:
            return f"missing required parameter {param!r}"
    for param, value in arguments.items():
        if param not in properties or param not in answer:
            return f"unexpected parameter {param!r}"
        error = check_param(param, value, answer[param], properties[param])
        if error:
            return error
    for param, acceptable in answer.items():
        if param not in arguments and "" not in acceptable:
            return f"optional parameter {param!r} not provided and not marked optional"
    return None


def find_parameters(tools: list[dict[str, Any]], name: str) -> dict[str, Any] | None:
    """The JSON schema of the offered tool called `name`, or None when it was not offered."""
    for tool in tools:
        function = tool.get("function", tool)
        if function.get("name") == name:
            params = function.get("parameters")
            return params if isinstance(params, dict) else {}
    return None


def schema_errors(call: Call, tools: list[dict[str, Any]]) -> str | None:
    """Validity: the tool was offered and the arguments fit its JSON schema."""
    params = find_parameters(tools, call.name)
    if params is None:
        return f"tool {call.name!r} was not offered"
    try:
        error = jsonschema.exceptions.best_match(
            jsonschema.Draft202012Validator(params).iter_errors(call.arguments)
        )
    except (jsonschema.exceptions.SchemaError, TypeError, ValueError) as exc:
        return f"unusable schema: {exc}"
    return None if error is None else f"schema: {error.message}"


def check_relevance(case: BfclCase, calls: list[Call] | None) -> Verdict:
    """(Ir)relevance: right iff the presence of a call is what the category wants."""
    has_call = bool(calls)
    ok = has_call == case.expects_call
    errors = [schema_errors(c, case.tools) for c in calls or []]
    first = next((e for e in errors if e), None)
    return Verdict(ok, ok, calls is not None and first is None, None if ok else "relevance")


def check_case(case: BfclCase, calls: list[Call] | None) -> Verdict:
    """Score one case's output; `calls` None means the output did not parse."""
    if case.answers is None:
        return check_relevance(case, calls)
    valid = calls is not None and all(schema_errors(c, case.tools) is None for c in calls)
    if not calls or len(calls) != len(case.answers):
        return Verdict(False, False, valid, "wrong number of calls")
    expected_name, answer = next(iter(case.answers[0].items()))
    call = calls[0]
    if call.name != openai_name(expected_name):
        return Verdict(False, False, valid, f"wrong function {call.name!r}")
    params = find_parameters(case.tools, call.name) or {}
    error = check_arguments(call.arguments, answer, params)
    return Verdict(True, error is None, valid, error)
