"""Weights and thresholds fitted on development data, read from calibration.json."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

PATH = Path(__file__).parent / "priors" / "calibration.json"


@dataclass(frozen=True)
class Calibration:
    choice_temperature: float = 0.05  # softmax temperature over cosine similarities
    no_tool_similarity: float = 0.25  # the "answer directly" similarity when no weights are fitted
    no_tool_weights: dict[str, float] = field(default_factory=dict)  # see relevance.py
    no_tool_metric: list[float] = field(default_factory=list)  # relevance.metric_match
    cascade_margin: float = 0.3  # embedding margin above which the LM is not consulted
    lm_weight: float = 0.5  # hybrid: weight of the LM's z-scored log-prob
    lm_temperature: float = 1.0
    optional_threshold: float = 0.0  # an optional parameter is filled above this score
    value_weights: dict[str, float] = field(default_factory=dict)
    value_lm_margin: float = 0.0  # a text value's runner-up within this score: the LM is asked
    value_lm_weight: float = 0.0  # weight of its log-probability then; 0.0: never asked
    note: str = ""


@cache
def load_calibration(path: Path = PATH) -> Calibration:
    if not path.exists():
        return Calibration()
    raw: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    known = set(Calibration.__dataclass_fields__)
    return Calibration(**{k: v for k, v in raw.items() if k in known})
