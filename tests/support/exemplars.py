"""Exemplars as the pipeline writes them, with vectors in clusters standing for kinds of request
(no models needed): what the learning tests on a real database share."""

from __future__ import annotations

from typing import Any

import numpy as np

from shadowswitch.store.exemplars import ExemplarStore
from shadowswitch.store.tables import Exemplar

TOOLS = ("lookup_order", "escalate_order", "__no_tool__")
DIM = 32


def centres(seed: int = 0) -> np.ndarray[Any, Any]:
    rng = np.random.default_rng(seed)
    c = rng.normal(size=(len(TOOLS), DIM))
    return c / np.linalg.norm(c, axis=1, keepdims=True)


def vector(kind: int, rng: np.random.Generator, seed: int = 0) -> np.ndarray[Any, Any]:
    v = centres(seed)[kind] + rng.normal(scale=0.08, size=DIM)
    return (v / np.linalg.norm(v)).astype(np.float32)


def zero_shot(rng: np.random.Generator) -> dict[str, float]:
    """The zero-shot ranking of these requests: unsure, and mostly wrong (lookup first)."""
    raw = {"lookup_order": 0.5 + rng.uniform(0, 0.2), "escalate_order": 0.2, "__no_tool__": 0.2}
    total = sum(raw.values())
    return {k: v / total for k, v in raw.items()}


def exemplar(kind: int, label: str, rng: np.random.Generator, i: int, tools_key: str = "k") -> Exemplar:
    return Exemplar(
        task_type="support",
        decision_id=f"d{i:030d}",
        encoder="test-encoder",
        vector=vector(kind, rng, 0 if tools_key == "k" else 1).tobytes(),  # another agent: other requests
        label=label,
        tools_key=tools_key,
        zero_shot=zero_shot(rng),
        local_tool="lookup_order",
        args_status="agree" if label == "lookup_order" else "unknown",
        arguments={"units": {"type": "str", "in_text": False, "value": "metric"}}
        if label != TOOLS[2]
        else None,
    )


def add(
    store: ExemplarStore, n: int, rng: np.random.Generator, start: int, poisoned: bool = False, every: int = 1
) -> None:
    """`n` exemplars from `start`; `poisoned`: every `every`-th one's label drawn at random; with
    `every` > 1 those are another agent's (`tools_key` "k2", requests of their own)."""
    for i in range(start, start + n):
        kind = i % len(TOOLS)
        bad = poisoned and i % every == 0
        label = TOOLS[rng.integers(len(TOOLS))] if bad else TOOLS[kind]
        store.add(exemplar(kind, label, rng, i, "k2" if bad and every > 1 else "k"))
