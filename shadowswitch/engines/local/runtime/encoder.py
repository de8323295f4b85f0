"""Sentence embeddings with all-MiniLM-style encoders: mean pooling, L2-normalised, cached."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import torch

from shadowswitch.engines.local.runtime import budget
from shadowswitch.engines.local.runtime.lru import LRU

MAX_TOKENS = 256
BATCH = 16
SHAPE_STEP = 16


class TextEncoder(Protocol):
    """What the engine asks of a sentence encoder: unit vectors, with a cache of the texts that
    come back on every request (candidates, parameters). `Encoder` here; `MultilingualEncoder`."""

    name: str
    dim: int

    @property
    def cache_key(self) -> list[str]: ...

    def embed(self, texts: Sequence[str], remember: Sequence[str] = ()) -> torch.Tensor: ...

    def embed_cached(self, texts: Sequence[str]) -> torch.Tensor: ...


class CachedEncoder:
    """The cache of vectors shared by the encoders: `_encode` computes, this remembers."""

    name: str
    dim: int

    def __init__(self, cache_size: int) -> None:
        self.cache: LRU[str, torch.Tensor] = LRU(cache_size)

    def _encode(self, texts: Sequence[str]) -> torch.Tensor:
        raise NotImplementedError

    def embed(self, texts: Sequence[str], remember: Sequence[str] = ()) -> torch.Tensor:
        """(n, dim) unit vectors of `texts`, in the order given.

        `remember`: texts to embed in the same passes and keep in the cache (the candidates'
        descriptions, met again on the next request). A pass costs some milliseconds whatever
        it holds, so a request's first texts share one. A text in both (a short user turn is one
        of its own values) is embedded once."""
        own = {t: i for i, t in enumerate(texts)}
        extra = [t for t in dict.fromkeys(remember) if t not in self.cache and t not in own]
        vectors = self._encode([*texts, *extra])
        for text, vector in zip(extra, vectors[len(texts) :], strict=True):
            self.cache.put(text, vector)
        for text in dict.fromkeys(remember):
            if text in own and text not in self.cache:
                self.cache.put(text, vectors[own[text]])
        return vectors[: len(texts)]

    def embed_cached(self, texts: Sequence[str]) -> torch.Tensor:
        """Like `embed`, but reuses vectors of texts seen before."""
        found = {t: v for t in dict.fromkeys(texts) if (v := self.cache.get(t)) is not None}
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        for text, vector in zip(missing, self._encode(missing), strict=True):
            self.cache.put(text, vector)
            found[text] = vector
        if not texts:
            return torch.zeros(0, self.dim)
        return torch.stack([found[t] for t in texts])


class Encoder(CachedEncoder):
    """Embeds texts with a transformers model in this process."""

    name = "all-MiniLM-L6-v2"  # models.ENCODER_ID

    def __init__(self, model: Any, tokenizer: Any, cache_size: int = 8192) -> None:
        super().__init__(cache_size)
        self.model = model
        budget.interruptible(model)  # a long pass stops at the decision's deadline
        self.dim = model.config.hidden_size
        self.tokenizer = tokenizer
        # bfloat16 kernels are compiled per shape: lengths rounded up to 16 let a few shapes serve
        # every request (about 20 -> 16 ms a pass on new lengths); float32 only pays the padding.
        self.pad_to = SHAPE_STEP if model.dtype == torch.bfloat16 else None

    @property
    def cache_key(self) -> list[str]:
        """What names these vectors in a file cache (reference tools): vectors embedded in
        bfloat16 or int8 differ a little from float32 ones."""
        from shadowswitch.engines.local.runtime.models import precision_of

        return [self.model.config.name_or_path, precision_of(self.model)]

    @torch.inference_mode()
    def _encode(self, texts: Sequence[str]) -> torch.Tensor:
        """Texts go through in batches of similar length: a request's values run from one word
        to the whole turn, and padding every one to the longest cost several times the work."""
        if not texts:
            return torch.zeros(0, self.dim)
        ids = self.tokenizer(list(texts), truncation=True, max_length=MAX_TOKENS)["input_ids"]
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        out = torch.empty(len(ids), self.dim)
        for k in range(0, len(order), BATCH):
            chunk = order[k : k + BATCH]
            batch = self.tokenizer.pad(
                {"input_ids": [ids[i] for i in chunk]}, pad_to_multiple_of=self.pad_to, return_tensors="pt"
            )
            hidden = self.model(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            out[chunk] = torch.nn.functional.normalize(pooled.float(), dim=-1)
        return out
