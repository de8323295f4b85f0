"""bench.calibrate writes a prior (format 1) that the engine loads back as written."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from bench.calibrate import finished
from shadowswitch.engines.local.calibration import FittedFor, load_calibration, write_calibration
from shadowswitch.engines.local.choice.reference import read_texts, write_texts
from shadowswitch.engines.local.runtime.models import LoadedModels


def test_the_written_prior_loads_back_with_its_models_data_and_reference_tools(tmp_path: Path) -> None:
    models = LoadedModels("some.gguf", None, None, None, None, "some", "an-encoder", tmp_path)
    write_texts(["get weather: Current weather for a city"], tmp_path / "reference_tools.json", "dev")
    fitted = replace(
        load_calibration(), value_lm_weight=0.1, reference_tools=tmp_path / "reference_tools.json"
    )
    prior = finished(fitted, models, 10, 0.812, {"chat": 0.45, "formal": 0.5})
    write_calibration(prior, tmp_path / "calibration.json")
    back = load_calibration(tmp_path / "calibration.json")
    assert back == prior and back.value_lm_weight == 0.1
    assert back.fitted_for == FittedFor("an-encoder", "some")
    assert "10 cases per file" in back.fitted_on and "never the test files" in back.fitted_on
    assert "0.812" in back.note and back.reference_tools is not None
    assert read_texts(back.reference_tools) == ["get weather: Current weather for a city"]
