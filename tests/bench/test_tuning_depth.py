"""`bench.tuning_depth`: the trainer's tuning set for one comparison, and put back after it."""

from __future__ import annotations

import functools

import pytest

from bench import tuning_depth
from shadowswitch.engines.local.runtime import finetune

pytestmark = pytest.mark.unit


def test_a_tuning_is_the_trainers_with_its_layers_and_pairs_and_is_put_back() -> None:
    kept = finetune.tune
    with tuning_depth.tuning(3, 200):
        tune = finetune.tune
        assert isinstance(tune, functools.partial) and tune.func is kept
        assert tune.keywords == {"layers": 3, "most": 200}
    assert finetune.tune is kept
    with pytest.raises(RuntimeError), tuning_depth.tuning(4, 100):
        raise RuntimeError("a run that fails")
    assert finetune.tune is kept
