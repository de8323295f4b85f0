"""Learning's tuned encoder (`learning/tuning.py`): which runs tune, what a state keeps of it, and
that the engine reads a tuned state's requests with the tuned layers (the real embedded encoder)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from shadowswitch.engines.local.runtime import finetune
from shadowswitch.learning import tuning
from shadowswitch.learning.fit import Pair
from shadowswitch.learning.memory import Memory
from shadowswitch.store.tables import Exemplar
from tests.support.asks import ASKS

DIM = 8


def row(i: int, texts: Any) -> Exemplar:
    vector = np.eye(DIM, dtype=np.float32)[i % DIM].tobytes()
    return Exemplar(
        id=i, task_type="t", decision_id=f"d{i}", encoder="all-MiniLM-L6-v2", vector=vector,
        label="a", tools_key="k", texts=texts,
    )  # fmt: skip


def test_a_run_tunes_only_when_every_pair_kept_its_words() -> None:
    kept = [row(i, {"query": f"words {i}"}) for i in range(3)]
    found = tuning.tuning_for(kept)
    assert found is not None and found.texts[1] == "words 1"
    assert tuning.tuning_for([*kept, row(3, None)]) is None  # one pair from before: no tuning
    other = [row(0, {"query": "w"})]
    other[0].encoder = "multilingual-e5-small.q4"  # not an encoder the trainer tunes
    assert tuning.tuning_for(other) is None
    assert tuning.figures(False, found, None) == {"tuned": False, "why_not": "the policy does not tune it"}


def test_a_state_keeps_its_layers_and_its_exemplars_vectors() -> None:
    rng = np.random.default_rng(0)
    weights = {"5.output.dense.weight": rng.normal(size=(4, 4)).astype(np.float32)}  # float16 stored
    tuned = finetune.Tuned(5, weights, pairs=32)
    unit = [v / np.linalg.norm(v) for v in rng.normal(size=(3, DIM)).astype(np.float32)]
    pairs = [
        Pair(i, unit[i], "a", {"a": 1.0}, "a", "agree", opening=unit[0] if i else None) for i in range(3)
    ]
    packed = tuning.unpack(tuning.pack(tuned, pairs))
    name = "5.output.dense.weight"
    assert packed.tuned.first == 5 and np.allclose(packed.tuned.weights[name], weights[name], atol=1e-2)
    assert packed.openings[0] is None and packed.openings[2] is not None
    stored = [Pair(i, np.zeros(DIM, dtype=np.float32), "a", {}, "a", "agree") for i in range(4)]
    read = packed.read(stored)
    assert all(float(np.dot(read[i].vector, unit[i])) > 0.999 for i in range(3))  # float16, unit length
    assert read[3] is stored[3]  # a pair it did not learn from: as stored


@pytest.mark.slow
def test_the_engine_reads_a_tuned_states_words_with_its_layers(local_engine: Any) -> None:
    from shadowswitch.engines.local.runtime.encoder import Encoder
    from shadowswitch.engines.local.tuned_reading import TunedReaders
    from shadowswitch.request import ChatView

    models = local_engine.models
    labelled = {text: label for label, texts in ASKS.items() for text in texts}
    tuned = finetune.tune(models.encoder, models.encoder_tokenizer, labelled, seed=1)
    assert tuned is not None
    frozen = Encoder(models.encoder, models.encoder_tokenizer)
    readers = TunedReaders(frozen)
    request = ChatView.parse({"messages": [{"role": "user", "content": "my password stopped working"}]})
    vector = frozen.embed(["my password stopped working"])[0].numpy()
    empty = np.zeros((0, frozen.dim), dtype=np.float32)
    state = Memory(1, frozen.name, empty, np.array([], dtype=object), 0.5, 0.5)
    assert readers.read(state, request, vector, None)[0] is vector  # a frozen state: as given
    state.tuned, state.tuned_digest = tuned, "abc"
    words, purpose = readers.read(state, request, vector, None)
    assert purpose is vector  # a first turn's purpose: its words, as the frozen encoder read them
    assert abs(float(np.linalg.norm(words)) - 1) < 1e-3
    assert float(np.dot(words, vector)) < 0.999  # read with the tuned layers
    again = Encoder(tuned.apply(models.encoder), models.encoder_tokenizer).embed(
        ["my password stopped working"]
    )
    assert float(np.dot(words, again[0].numpy())) > 0.99
    assert readers.encoders.get("abc") is not None  # kept for the state's next requests


def test_a_run_tunes_on_a_hundred_user_turns_of_two_choices_or_more() -> None:
    def pairs(n: int, labels: int) -> list[Pair]:
        one = np.ones(DIM, dtype=np.float32)
        return [Pair(i, one, f"tool{i // 2 % labels}", {}, None, "none", step=i % 2) for i in range(2 * n)]

    def texts(n: int) -> tuning.Tuning:
        return tuning.Tuning({i: f"words {i // 2}" for i in range(2 * n)})  # a turn: two steps, one text

    assert not texts(99).enough(pairs(99, 2)) and texts(100).enough(pairs(100, 2))
    assert not texts(200).enough(pairs(200, 1))  # one choice: nothing to contrast
