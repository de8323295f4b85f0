"""The prior: a versioned file naming the models it was fitted for, found through Settings."""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from pathlib import Path

import pytest

from shadowswitch.engines.local.calibration import (
    ENCODER_FIELDS,
    LM_FIELDS,
    PACKAGED,
    Calibration,
    FittedFor,
    load_calibration,
    write_calibration,
)
from shadowswitch.engines.local.choice.reference import read_texts
from shadowswitch.server.settings import Settings

ENCODER, LM = "all-MiniLM-L6-v2", "SmolLM2-135M-Instruct.Q4_1"


def test_the_packaged_prior_says_what_it_was_fitted_for_and_on() -> None:
    prior = load_calibration()
    assert json.loads(PACKAGED.read_text())["format"] == 1
    assert prior.fitted_for == FittedFor(ENCODER, LM)
    assert "development files" in prior.fitted_on and prior.value_weights and prior.no_tool_metric
    assert prior.reference_tools is not None and len(read_texts(prior.reference_tools)) > 1000


def test_a_written_prior_loads_back(tmp_path: Path) -> None:
    prior = replace(load_calibration(), reference_tools=tmp_path / "refs" / "tools.json")
    write_calibration(prior, tmp_path / "prior.json")
    assert json.loads((tmp_path / "prior.json").read_text())["reference_tools"] == "refs/tools.json"
    assert load_calibration(tmp_path / "prior.json") == prior


def test_another_format_is_refused(tmp_path: Path) -> None:
    (tmp_path / "old.json").write_text(json.dumps({"choice_temperature": 0.07}))
    with pytest.raises(ValueError, match="format None"):
        load_calibration(tmp_path / "old.json")


def test_the_models_it_was_fitted_for_keep_every_weight() -> None:
    prior = load_calibration()
    assert prior.for_models(ENCODER, LM) is prior


def test_another_lm_gets_neutral_lm_weights_and_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    prior = replace(load_calibration(), lm_weight=0.3, cascade_margin=0.2)
    with caplog.at_level(logging.WARNING):
        mine = prior.for_models(ENCODER, "Qwen2.5-0.5B-Instruct")
    assert "Qwen2.5-0.5B-Instruct" in caplog.text and "value_lm_weight" in caplog.text
    neutral = Calibration()
    assert all(getattr(mine, f) == getattr(neutral, f) for f in LM_FIELDS)
    assert all(getattr(mine, f) == getattr(prior, f) for f in ENCODER_FIELDS)
    assert mine.value_lm_weight == 0.0 and mine.lm_weight == 0.0  # the LM is not mixed in


def test_another_encoder_gets_neutral_weights_throughout() -> None:
    mine = load_calibration().for_models("paraphrase-multilingual-MiniLM-L12-v2", LM)
    neutral = Calibration()
    assert all(getattr(mine, f) == getattr(neutral, f) for f in ENCODER_FIELDS + LM_FIELDS)
    assert mine.value_weights == {} and mine.no_tool_metric == []  # features.DEFAULT_WEIGHTS, cosine


def test_settings_name_the_prior_and_the_knowledge_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings().calibration == PACKAGED
    assert Settings().knowledge == ("places", "currencies")
    monkeypatch.setenv("SHADOWSWITCH_CALIBRATION", "/srv/prior.json")
    monkeypatch.setenv("SHADOWSWITCH_KNOWLEDGE", "currencies")
    assert Settings().calibration == Path("/srv/prior.json")
    assert Settings().knowledge == ("currencies",)
    monkeypatch.setenv("SHADOWSWITCH_KNOWLEDGE", "")
    assert Settings().knowledge == ()
