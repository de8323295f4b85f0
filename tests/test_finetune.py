"""Fine-tuning the real sentence encoder to a task type's choices (`engines/local/runtime/finetune.py`): the
tuned layers pull texts of the same first choice together and push the others apart, and they
survive storage."""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

import numpy as np
import pytest

from shadowswitch.engines.local.runtime import finetune
from shadowswitch.engines.local.runtime.encoder import Encoder
from tests.support.asks import ASKS

pytestmark = pytest.mark.slow


def separation(vectors: np.ndarray[Any, Any], labels: list[str]) -> float:
    """Mean cosine of same-choice pairs minus that of different-choice pairs."""
    same: list[float] = []
    other: list[float] = []
    for i, j in combinations(range(len(labels)), 2):
        (same if labels[i] == labels[j] else other).append(float(vectors[i] @ vectors[j]))
    return float(np.mean(same) - np.mean(other))


def test_tuning_separates_the_choices_and_survives_storage(local_engine: Any) -> None:
    models = local_engine.models
    labelled = {text: label for label, texts in ASKS.items() for text in texts}
    texts, labels = list(labelled), list(labelled.values())
    frozen = Encoder(models.encoder, models.encoder_tokenizer)._encode(texts).numpy()

    tuned = finetune.tune(models.encoder, models.encoder_tokenizer, labelled, seed=1)
    assert tuned is not None and tuned.pairs > 0
    encoder = Encoder(tuned.apply(models.encoder), models.encoder_tokenizer)
    after = encoder._encode(texts).numpy()
    assert separation(after, labels) > separation(frozen, labels) + 0.05

    stored = finetune.Tuned.from_bytes(tuned.to_bytes())
    assert stored.first == tuned.first and set(stored.weights) == set(tuned.weights)
    again = Encoder(stored.apply(models.encoder), models.encoder_tokenizer)._encode(texts).numpy()
    assert np.min(np.sum(again * after, axis=1)) > 0.999  # float16 storage: the same vectors
    # the model it was applied to is untouched
    assert np.allclose(Encoder(models.encoder, models.encoder_tokenizer)._encode(texts).numpy(), frozen)


def test_nothing_to_contrast() -> None:
    one = {"reset my password": "reset_password", "new password please": "reset_password"}
    assert finetune.contrastive_pairs(one, random.Random(0)) == []
    assert finetune.tune(None, None, one) is None


def test_pairs_balance_and_label_only_the_turns_first_step() -> None:
    labelled = finetune.first_labels(
        ["reset it", "reset it", "printer jam", "vpn please", " "],
        ["lookup_user", "reset_password", "report_printer", "grant_vpn", "grant_vpn"],
        [0, 1, 0, 0, 0],
    )
    assert labelled == {"reset it": "lookup_user", "printer jam": "report_printer", "vpn please": "grant_vpn"}
    pairs = finetune.contrastive_pairs({**labelled, "reset again": "lookup_user"}, random.Random(0))
    positives = [p for p in pairs if p[2] == 1.0]
    negatives = [p for p in pairs if p[2] == 0.0]
    assert positives and negatives
    assert all(labelled.get(a, "lookup_user") == labelled.get(b, "lookup_user") for a, b, _ in positives)
    assert all(a != b for a, b, _ in pairs)
