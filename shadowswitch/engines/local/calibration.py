"""The prior: the engine's weights and thresholds, fitted offline, read at start-up from a file.

The prior is where every task type starts: `bench.calibrate` fits it once on BFCL's development
files for one encoder and one LM, and the product loads it (`Settings.calibration`, env
`SHADOWSWITCH_CALIBRATION`; default the packaged `priors/calibration.json`). Per-task-type
learning will later refine it from the task type's own traffic; until a task type has pairs of its
own, the prior is all it knows.

File format 1 (JSON):

    {"format": 1,
     "fitted_for": {"encoder": "all-MiniLM-L6-v2", "lm": "SmolLM2-135M-Instruct.Q4_1"},
     "fitted_on": "BFCL v4 development files ...",
     "reference_tools": "reference_tools.json",     # relative to this file; optional
     "note": "how it was fitted",
     "weights": {"choice_temperature": 0.07, ...}}  # the fields of `Calibration` below

Weights are on the scale of the models they were fitted with. `for_models` keeps the parts that
fit the loaded models and sets the others to the neutral defaults of `Calibration`:
- fitted for another encoder: `ENCODER_FIELDS` (cosine scales, the "answer directly" level and
  its 384-dimension metric, the value weights, which read the encoder's similarity), and the
  LM fields too, since they weigh the LM against the encoder's scores;
- fitted for another LM: `LM_FIELDS` (how much the LM's log-probabilities count), so an LM
  nobody has calibrated is not mixed into the encoder's choices or values; the `lm` scorer
  still ranks with it alone.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

FORMAT = 1
PACKAGED = Path(__file__).parent / "priors" / "calibration.json"
# The prior of the multilingual encoder (runtime/multilingual.py), fitted on the same data.
PACKAGED_MULTILINGUAL = Path(__file__).parent / "priors" / "calibration-multilingual.json"


@dataclass(frozen=True)
class FittedFor:
    """The models a prior was fitted with, as `LoadedModels.encoder_id` and `lm_id` name them."""

    encoder: str = ""
    lm: str = ""


@dataclass(frozen=True)
class Calibration:
    """The weights; their defaults are the neutral prior, fitted for no model."""

    choice_temperature: float = 0.05  # softmax temperature over cosine similarities
    no_tool_similarity: float = 0.25  # the "answer directly" similarity when no weights are fitted
    no_tool_weights: dict[str, float] = field(default_factory=dict)  # see relevance.py
    no_tool_metric: list[float] = field(default_factory=list)  # relevance.metric_match
    cascade_margin: float = 0.0  # embedding margin above which the LM is not consulted (0: never)
    lm_weight: float = 0.0  # hybrid: weight of the LM's log-prob against the encoder's score
    lm_temperature: float = 1.0
    optional_threshold: float = 0.0  # an optional parameter is filled above this score
    value_weights: dict[str, float] = field(default_factory=dict)  # empty: features.DEFAULT_WEIGHTS
    value_lm_margin: float = 0.0  # a text value's runner-up within this score: the LM is asked
    value_lm_weight: float = 0.0  # weight of its log-probability then; 0.0: never asked
    meaning_similarity: float = 0.7  # an enum option (or a flag, in Chinese) a phrase means: cosine
    fitted_for: FittedFor = FittedFor()
    fitted_on: str = ""  # the data it was fitted on
    reference_tools: Path | None = None  # reference.py's texts; None: no reference tools
    note: str = ""

    def for_models(self, encoder: str, lm: str) -> Calibration:
        """This prior for the loaded models: parts fitted for other models become neutral."""
        stale = _stale_fields(self.fitted_for, encoder, lm)
        if not stale:
            return self
        fitted = self.fitted_for
        log.warning(
            "calibration fitted for encoder %r and LM %r, loaded %r and %r: neutral defaults for %s "
            "(refit with bench.calibrate for these models)",
            *(fitted.encoder, fitted.lm, encoder, lm, ", ".join(stale)),
        )
        neutral = Calibration()
        return replace(self, **{name: getattr(neutral, name) for name in stale})


ENCODER_FIELDS = (
    "choice_temperature",
    "no_tool_similarity",
    "no_tool_weights",
    "no_tool_metric",
    "optional_threshold",
    "value_weights",
    "meaning_similarity",
)
LM_FIELDS = ("cascade_margin", "lm_weight", "lm_temperature", "value_lm_margin", "value_lm_weight")
WEIGHTS = ENCODER_FIELDS + LM_FIELDS


def _stale_fields(fitted: FittedFor, encoder: str, lm: str) -> tuple[str, ...]:
    if fitted.encoder and fitted.encoder != encoder:
        return WEIGHTS
    if fitted.lm and fitted.lm != lm:
        return LM_FIELDS
    return ()


def prior_for(encoder: str, given: Calibration | None = None) -> Calibration:
    """The prior an engine reading with `encoder` starts from: `given` when it was fitted for
    that encoder (or for none), else the packaged one fitted for it, else `given` (whose
    encoder weights `for_models` then makes neutral)."""
    from shadowswitch.engines.local.runtime.multilingual import MULTILINGUAL_ID

    if given is not None and given.fitted_for.encoder in ("", encoder):
        return given
    packaged = PACKAGED_MULTILINGUAL if encoder == MULTILINGUAL_ID else PACKAGED
    if packaged.exists():
        return load_calibration(packaged)
    if encoder == MULTILINGUAL_ID:  # no prior fitted: neutral levels on e5's compressed scale
        return Calibration(no_tool_similarity=E5_NO_TOOL, meaning_similarity=E5_MEANING)
    return given or Calibration()


# e5's cosines lie between about 0.75 and 0.90: a request and its tool 0.85-0.87, an unrelated
# tool 0.78-0.81; a word and its translation 0.86-0.90. Used only where no prior was fitted.
E5_NO_TOOL = 0.83
E5_MEANING = 0.9


def load_calibration(path: Path = PACKAGED) -> Calibration:
    """Read a prior in format 1; raises ValueError for another format, FileNotFoundError."""
    raw: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    if raw.get("format") != FORMAT:
        raise ValueError(f"{path}: calibration format {raw.get('format')!r}, this version reads {FORMAT}")
    reference = raw.get("reference_tools")
    return Calibration(
        **{k: v for k, v in raw["weights"].items() if k in WEIGHTS},
        fitted_for=FittedFor(**raw["fitted_for"]),
        fitted_on=raw.get("fitted_on", ""),
        reference_tools=path.parent / reference if reference else None,
        note=raw.get("note", ""),
    )


def write_calibration(cal: Calibration, path: Path) -> None:
    """Write `cal` in format 1; the reference tools' path is stored relative to `path`."""
    reference = os.path.relpath(cal.reference_tools, path.parent) if cal.reference_tools else None
    doc = {
        "format": FORMAT,
        "fitted_for": asdict(cal.fitted_for),
        "fitted_on": cal.fitted_on,
        "reference_tools": reference,
        "note": cal.note,
        "weights": {f.name: getattr(cal, f.name) for f in fields(cal) if f.name in WEIGHTS},
    }
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
