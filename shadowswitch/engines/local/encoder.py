"""Sentence embeddings with all-MiniLM-style encoders: mean pooling, L2-normalised, cached."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from .lru import LRU


class Encoder:
    """Embeds texts; texts that repeat across requests (candidate descriptions) are cached."""

    def __init__(self, model: Any, tokenizer: Any, cache_size: int = 8192) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.cache: LRU[str, torch.Tensor] = LRU(cache_size)

    @torch.inference_mode()
    def embed(self, texts: Sequence[str]) -> torch.Tensor:
        """(n, dim) unit vectors, in the order given."""
        if not texts:
            return torch.zeros(0, self.model.config.hidden_size)
        batch = self.tokenizer(
            list(texts), padding=True, truncation=True, max_length=256, return_tensors="pt"
        )
        hidden = self.model(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        return torch.nn.functional.normalize(pooled, dim=-1)

    def embed_cached(self, texts: Sequence[str]) -> torch.Tensor:
        """Like `embed`, but reuses vectors of texts seen before."""
        found = {t: v for t in dict.fromkeys(texts) if (v := self.cache.get(t)) is not None}
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        for text, vector in zip(missing, self.embed(missing), strict=True):
            self.cache.put(text, vector)
            found[text] = vector
        if not texts:
            return torch.zeros(0, self.model.config.hidden_size)
        return torch.stack([found[t] for t in texts])
