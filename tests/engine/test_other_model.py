"""A policy naming another local model family: a tiny random GPT-2 with a Gemma chat template.

Random weights: the choice is checked for validity only, never for being right.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch
from transformers import AutoTokenizer, GPT2Config, GPT2LMHeadModel

from shadowswitch.engines.engine_set import EngineSet
from shadowswitch.engines.local import create_engine, load_calibration
from shadowswitch.engines.local.calibration import Calibration
from shadowswitch.engines.local.choice.candidates import offered_tools
from shadowswitch.engines.local.decider import Decider
from shadowswitch.engines.local.schema import is_valid
from shadowswitch.policy.models import ModelSource, Policy
from shadowswitch.request import ChatView
from tests.support.engine_requests import TOOLS, ask
from tests.support.policies import ROOMY
from tests.support.templates import GEMMA

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def model_dir(engine: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An HF model directory: GPT-2 architecture, SmolLM2's vocabulary, Gemma's chat template."""
    path = tmp_path_factory.mktemp("models") / "tiny-gpt2-gemma"
    engine.engine.lm.tokenizer.save_pretrained(path)
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    tokenizer.chat_template = GEMMA
    tokenizer.save_pretrained(path)
    torch.manual_seed(0)
    sizes = {"n_positions": 4096, "n_embd": 32, "n_layer": 2, "n_head": 2}
    ids = {"bos_token_id": tokenizer.bos_token_id, "eos_token_id": tokenizer.eos_token_id}
    config = GPT2Config(vocab_size=len(tokenizer), **sizes, **ids)
    GPT2LMHeadModel(config).save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def tiny(model_dir: Path) -> Iterator[Any]:
    built = create_engine(str(model_dir))
    yield built
    built.close()


def test_the_engine_loads_it_with_its_own_template(tiny: Any) -> None:
    chat = tiny.engine.lm.format
    assert chat.origin == "chat template" and chat.end_of_turn == "<end_of_turn>"
    assert tiny.engine.models.lm_id == "tiny-gpt2-gemma"


def test_the_prior_keeps_only_what_fits_the_loaded_models(
    tiny: Any, caplog: pytest.LogCaptureFixture
) -> None:
    prior = load_calibration()
    with caplog.at_level(logging.WARNING):
        cal = Decider(tiny.engine.models, prior).cal
    assert "calibration fitted for" in caplog.text and "tiny-gpt2-gemma" in caplog.text
    assert cal.value_weights == prior.value_weights  # the encoder is the one it was fitted for
    assert (cal.value_lm_weight, cal.lm_weight, cal.cascade_margin) == (0.0, 0.0, 0.0)  # the LM is not
    assert cal.value_lm_weight == Calibration().value_lm_weight


async def test_a_tool_request_gets_a_valid_choice(tiny: Any, model_dir: Path) -> None:
    spec = str(model_dir)
    thresholds = {"min_confidence": 0.0, "min_margin": 0.0}
    policy = Policy(task_type="t", engine={**ROOMY, "model": spec, "scorer": "lm", **thresholds})
    request = ChatView.parse(ask("What's the weather like in Paris right now?", TOOLS))
    choice = await EngineSet({ModelSource(spec): tiny}).decide(request, policy)  # keyed by the policy's model
    assert len(tiny.engine.lm.prefixes) == 1  # the LM ranked the candidates
    assert choice.kind in ("tool", "no_tool") and choice.trace.candidates
    if choice.kind == "tool":
        tool = next(t for t in offered_tools(request) if t.id == choice.name)
        assert is_valid(choice.arguments, tool.parameters)


def test_it_scores_argument_values_in_its_format(tiny: Any) -> None:
    weather = next(t for t in offered_tools(ChatView.parse(ask("", TOOLS))) if t.id == "get_weather")
    scores = tiny.engine.rerank(weather, "Weather in Paris?", "city", ["Paris", "Weather"])
    assert len(scores) == 2 and all(math.isfinite(s) and s < 0 for s in scores)
