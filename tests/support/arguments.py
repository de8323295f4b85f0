"""Argument filling without a model: the filler, and hypothesis strategies for schemas and texts."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from shadowswitch.engines.local.arguments.filler import ArgumentFiller
from shadowswitch.engines.local.calibration import load_calibration


def no_similarity(left: list[str], right: list[str]) -> list[list[float]]:
    return [[0.0] * len(right) for _ in left]


# Without a model there is no grammar decoder, so these schemas leave out `pattern`
# (only the decoder can meet one); test_engine.py covers patterns with the real model.
FILLER = ArgumentFiller(no_similarity, load_calibration())


NAMES = st.text("abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=10)


def scalar(patterns: bool = False) -> st.SearchStrategy[dict[str, Any]]:
    number = st.fixed_dictionaries(
        {"type": st.sampled_from(["integer", "number"])},
        optional={
            "minimum": st.integers(-5, 5),
            "maximum": st.integers(6, 1000),
            "description": st.text(max_size=20),
        },
    )
    string = st.fixed_dictionaries(
        {"type": st.just("string")},
        optional={
            "minLength": st.integers(0, 3),
            "maxLength": st.integers(3, 30),
            "description": st.text(max_size=20),
        },
    )
    if patterns:  # a pattern alone: with length limits too, a schema may have no valid value
        pattern = st.sampled_from(["^[A-Z]{2}[0-9]{3}$", "^[a-z]+$", "^\\d{4}-\\d{2}$"])
        string = st.one_of(string, st.builds(lambda p: {"type": "string", "pattern": p}, pattern))
    enum = st.builds(
        lambda v: {"type": "string", "enum": v}, st.lists(NAMES, min_size=1, max_size=4, unique=True)
    )
    boolean = st.just({"type": "boolean"})
    return st.one_of(number, string, enum, boolean)


def schemas(patterns: bool = False) -> st.SearchStrategy[dict[str, Any]]:
    leaf = scalar(patterns)
    nested = st.recursive(
        leaf,
        lambda inner: st.one_of(
            st.builds(lambda i, n: {"type": "array", "items": i, "minItems": n}, inner, st.integers(0, 2)),
            st.builds(
                lambda p: {"type": "object", "properties": p, "required": list(p)[:1]},
                st.dictionaries(NAMES, inner, min_size=1, max_size=3),
            ),
        ),
        max_leaves=4,
    )
    return st.builds(
        lambda props, k: {"type": "object", "properties": props, "required": list(props)[:k]},
        st.dictionaries(NAMES, nested, min_size=0, max_size=5),
        st.integers(0, 5),
    )


TEXTS = st.sampled_from(
    [
        "",
        "Book 3 seats to Paris for $1M on 2024-05-01",
        "use 'AB123' and 'hello' please",
        "x = 5%, y = -2.5, name John Smith",
        "turn it off and not on",
    ]
)
