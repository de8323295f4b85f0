"""The encoder's cache of texts met again: what a pass embeds, and what it keeps."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from shadowswitch.engines.local.runtime.encoder import CachedEncoder


class Counting(CachedEncoder):
    """Vectors from the texts' lengths; remembers each batch it was asked to embed."""

    name, dim = "counting", 2

    def __init__(self) -> None:
        super().__init__(cache_size=16)
        self.passes: list[list[str]] = []

    def _encode(self, texts: Sequence[str]) -> torch.Tensor:
        self.passes.append(list(texts))
        return torch.tensor([[float(len(t)), 1.0] for t in texts])


def test_a_text_both_asked_and_remembered_is_embedded_once() -> None:
    encoder = Counting()
    turn = "Book a table for 4 in Paris"
    vectors = encoder.embed([turn], remember=["Paris", turn, "table"])
    assert encoder.passes == [[turn, "Paris", "table"]]
    assert torch.equal(vectors, torch.tensor([[27.0, 1.0]]))
    assert torch.equal(encoder.embed_cached([turn, "Paris"]), torch.tensor([[27.0, 1.0], [5.0, 1.0]]))
    assert [p for p in encoder.passes if p] == encoder.passes[:1]  # both were kept


def test_texts_already_kept_are_not_embedded_again() -> None:
    encoder = Counting()
    encoder.embed([], remember=["Paris"])
    encoder.embed(["Rome"], remember=["Paris", "Rome"])
    assert [p for p in encoder.passes if p] == [["Paris"], ["Rome"]]
    assert "Rome" in encoder.cache
