"""Hypothesis strategies for what users and agents hand the proxy: tool schemas, tools, policies.

They aim at the odd but plausible rather than at random bytes: loose type names, dangling and
recursive `$ref`s, invalid regular expressions, empty enums, wrong types in every field.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

NAMES = st.text("abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12)
TEXT = st.text(max_size=40)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(NAMES, inner, max_size=4),
    max_leaves=12,
)
TYPES = st.sampled_from(
    [
        "object",
        "array",
        "string",
        "number",
        "integer",
        "boolean",
        "null",
        "dict",
        "float",
        "int",
        "list",
        "tuple",
        "str",
        "bool",
        "any",
        "Banana",
        "",
    ]
)
REFS = st.sampled_from(
    ["#", "#/$defs/node", "#/$defs/missing", "#/properties/a", "other.json#/x", "#/definitions/node"]
)
PATTERNS = st.sampled_from(["^[A-Z]{2}\\d{6}$", "(unclosed", "[z-a]", "\\d+", "*"])


def _schema_keys(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "type": TYPES | st.lists(TYPES, max_size=3) | SCALARS,
            "description": TEXT,
            "properties": st.dictionaries(NAMES, inner, max_size=4) | SCALARS,
            "required": st.lists(NAMES | SCALARS, max_size=4) | SCALARS,
            "items": inner | st.lists(inner, max_size=2) | st.booleans(),
            "enum": st.lists(SCALARS, max_size=4) | SCALARS,
            "anyOf": st.lists(inner, max_size=3),
            "oneOf": st.lists(inner, max_size=3),
            "allOf": st.lists(inner, max_size=3),
            "$ref": REFS,
            "$defs": st.fixed_dictionaries({"node": inner}),
            "additionalProperties": st.booleans() | inner,
            "pattern": PATTERNS,
            "format": st.sampled_from(["date", "date-time", "email", "uri", "nonsense"]),
            "minimum": st.integers(-5, 5) | TEXT,
            "maximum": st.integers(-5, 5),
            "minLength": st.integers(-1, 5),
            "default": JSON,
            "const": SCALARS,
        },
    )


JSON_SCHEMAS: st.SearchStrategy[dict[str, Any]] = st.recursive(
    st.just({}) | st.builds(dict, type=TYPES), _schema_keys, max_leaves=16
)


def parameters() -> st.SearchStrategy[dict[str, Any]]:
    """A tool's `parameters`: usually an object schema with properties, sometimes anything."""
    objects = st.builds(
        lambda props, required, extra: {"type": "object", "properties": props, "required": required, **extra},
        st.dictionaries(NAMES, JSON_SCHEMAS, max_size=5),
        st.lists(NAMES, max_size=3),
        _schema_keys(JSON_SCHEMAS),
    )
    return st.one_of(objects, JSON_SCHEMAS)


def tools(max_size: int = 6) -> st.SearchStrategy[list[dict[str, Any]]]:
    """Tools with distinct names (the API refuses duplicates before any engine sees them)."""
    tool = st.builds(
        lambda name, description, params: {
            "type": "function",
            "function": {"name": name, "description": description, "parameters": params},
        },
        NAMES,
        TEXT,
        parameters(),
    )
    return st.lists(tool, min_size=1, max_size=max_size, unique_by=lambda t: t["function"]["name"])


USER_TEXT = st.sampled_from(
    [
        "What's the weather in Lisbon tomorrow?",
        "book a table for 4 at 7pm, my email is a@b.co",
        "convert 250 EUR to USD",
        "order AB123456 has not arrived",
        "",
        "ü" * 30,
    ]
) | st.text(max_size=80)


# -- policies ---------------------------------------------------------------------------------

VALID_POLICY: dict[str, Any] = {
    "task_type": "pick_tool",
    "match": {"model": "agent", "system_prompt_regex": "travel", "tools_include": ["a", "b"]},
    "upstream": {"model": "openai/m", "api_base": "http://127.0.0.1:1/v1", "timeout_s": 5},
    "rollout": {"mode": "canary", "percent": 10, "sticky_key": "session", "compare_percent": 5},
    "engine": {"scorer": "hybrid", "candidates": "tools", "max_candidates": 8, "min_confidence": 0.5},
    "breaker": {"consecutive_failures": 3, "reprobe_after_s": 600},
    "feedback": {"tool_error_regex": "(?i)error"},
    "actions": [
        {"id": "a", "description": "do a", "output": {"action": "a"}, "slots": {"x": {"pattern": "\\d+"}}}
    ],
}


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, sub in value.items():
            found += _paths(sub, (*prefix, key))
    elif isinstance(value, list):
        for index, sub in enumerate(value):
            found += _paths(sub, (*prefix, index))
    return found


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = _replace(copy[path[0]], path[1:], new)  # type: ignore[index]
    return copy


@st.composite
def policy_documents(draw: st.DrawFn) -> dict[str, Any]:
    """A valid policy with a few fields replaced by arbitrary values, or extra keys added."""
    policy: Any = VALID_POLICY
    paths = _paths(VALID_POLICY)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(paths))
        try:
            policy = _replace(policy, path, draw(JSON | PATTERNS))
        except (KeyError, IndexError, TypeError):
            continue
    if draw(st.booleans()):
        policy = {**policy, draw(NAMES): draw(JSON)}
    return dict(policy)


YAML_NOISE = st.sampled_from(
    [
        "task_type: [unclosed\n",
        "a: b\n  c: d\n",
        "- just\n- a list\n",
        "task_type: x\ntask_type: y\nupstream: {model: m}\n",
        "? [complex, key]\n: value\n",
        "task_type: x\nupstream: &u {model: m}\nmatch: *u\n",
        "\t tab: indented\n",
        "%YAML 9.9\n---\nx: 1\n",
        "--- a\n--- b\n",
        "",
        "\x00\x01",
    ]
)
