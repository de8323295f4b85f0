"""The language model's scoring on the real SmolLM2: one batched pass equals separate runs."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import torch

from shadowswitch.engines.local.runtime.lm import LanguageModel

pytestmark = pytest.mark.slow

FIXED = "<|im_start|>system\nCall get_weather(city, unit) with values from the message.<|im_end|>\n"
VARIABLE = '<|im_start|>user\nWeather in Paris in celsius?<|im_end|>\n<|im_start|>assistant\n{"city":'
VALUES = ['"Paris"', '"celsius"', '"Weather in Paris"', "1"]


@pytest.fixture(scope="module")
def model(engine: Any) -> Any:
    """The engine's SmolLM2 in float32: the engine may run it in bfloat16 (models.fastest_dtype),
    whose rounding differs between a masked pass and a plain one."""
    return copy.deepcopy(engine.engine.lm.model).float()


def from_scratch(lm: LanguageModel, prompt: list[int], continuation: list[int]) -> list[float]:
    """Each token's log-prob from a plain forward over the whole text, no cache, no mask."""
    with torch.inference_mode():
        logits = lm.model(input_ids=torch.tensor([prompt + continuation])).logits[0].float()
    logprobs = logits.log_softmax(-1)
    return [float(logprobs[len(prompt) - 1 + j][t]) for j, t in enumerate(continuation)]


def test_continuations_scored_side_by_side_match_separate_runs(engine: Any, model: Any) -> None:
    lm = LanguageModel(model, engine.engine.lm.tokenizer)  # an empty prefix cache
    conts = [lm.ids(v) for v in VALUES]
    expected = [from_scratch(lm, lm.ids(FIXED) + lm.ids(VARIABLE), c) for c in conts]
    cold = lm.score_after(FIXED, VARIABLE, conts)  # computes and keeps the fixed part
    warm = lm.score_after(FIXED, VARIABLE, conts)  # reuses it
    after_state = lm.score(lm.start(FIXED, VARIABLE), conts)  # no `between`: after the state itself
    for got in (cold, warm, after_state):
        assert [len(s) for s in got] == [len(c) for c in conts]
        for scores, want in zip(got, expected, strict=True):
            assert scores == pytest.approx(want, abs=1e-3)


def test_the_fixed_part_kept_from_a_scoring_pass_continues_like_a_fresh_one(engine: Any, model: Any) -> None:
    lm = LanguageModel(model, engine.engine.lm.tokenizer)
    lm.score_after(FIXED, VARIABLE, [lm.ids('"Paris"')])
    kept = lm.prefixes.get(FIXED)
    fresh = LanguageModel(model, engine.engine.lm.tokenizer).start(FIXED)
    assert kept is not None and kept.length == fresh.length
    assert torch.allclose(kept.logprobs, fresh.logprobs, atol=1e-3)
    ids = lm.ids(VARIABLE)
    assert torch.allclose(lm.extend(kept, ids).logprobs, lm.extend(fresh, ids).logprobs, atol=1e-3)


def test_single_token_values_right_after_the_fixed_part(engine: Any, model: Any) -> None:
    """Nothing but the fixed part is run: its cache is kept whole, not cropped to nothing."""
    lm = LanguageModel(model, engine.engine.lm.tokenizer)
    conts = [lm.ids(" yes")[:1], lm.ids(" no")[:1]]
    expected = [from_scratch(lm, lm.ids(FIXED), c) for c in conts]
    for _ in range(2):  # a miss, then a hit
        got = lm.score_after(FIXED, "", conts)
        for scores, want in zip(got, expected, strict=True):
            assert scores == pytest.approx(want, abs=1e-3)
    kept = lm.prefixes.get(FIXED)
    assert kept is not None and kept.length == len(lm.ids(FIXED))
