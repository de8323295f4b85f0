"""Causal-LM scoring: cached prompt prefixes, batched continuation log-probs, greedy steps."""

from __future__ import annotations

import copy
import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from .lru import LRU


@dataclass
class PrefixState:
    """A prompt already run through the model: its KV cache and the next-token log-probs."""

    cache: Any
    logprobs: torch.Tensor  # (vocab,)
    length: int


class LanguageModel:
    """Wraps a transformers causal LM; every method is meant for the one worker thread."""

    def __init__(self, model: Any, tokenizer: Any, cache_size: int = 64) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.prefixes: LRU[str, PrefixState] = LRU(cache_size)
        params = inspect.signature(model.forward).parameters
        self._cache_kw = "cache" if "cache" in params else "past_key_values"
        self.vocab_size = int(model.get_output_embeddings().weight.shape[0])

    def ids(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    @torch.inference_mode()
    def start(self, fixed: str, variable: str = "") -> PrefixState:
        """The state after `fixed + variable`; the fixed part's KV cache is reused across calls."""
        state = self.prefixes.get(fixed)
        if state is None:
            state = self._run(None, self.ids(fixed), 0)
            self.prefixes.put(fixed, state)
        return self.extend(state, self.ids(variable)) if variable else state

    @torch.inference_mode()
    def extend(self, state: PrefixState, ids: Sequence[int]) -> PrefixState:
        """A new state with `ids` appended; `state` itself stays usable."""
        if not ids:
            return state
        return self._run(copy.deepcopy(state.cache), list(ids), state.length)

    def _run(self, cache: Any, ids: list[int], offset: int) -> PrefixState:
        out = self._forward(torch.tensor([ids]), cache, keep=1)
        logprobs = torch.log_softmax(out.logits[0, -1].float(), dim=-1)
        return PrefixState(_cache_of(out), logprobs, offset + len(ids))

    def _forward(self, ids: torch.Tensor, cache: Any, keep: int = 0, mask: Any = None) -> Any:
        kwargs = {self._cache_kw: cache, "use_cache": True, "logits_to_keep": keep}
        if mask is not None:
            kwargs["attention_mask"] = mask
        return self.model(input_ids=ids, **kwargs)

    @torch.inference_mode()
    def score(self, state: PrefixState, continuations: Sequence[Sequence[int]]) -> list[list[float]]:
        """Per-token log-probs of each continuation after `state`, all in one batched pass."""
        conts = [list(c) for c in continuations]
        if not conts:
            return []
        firsts = [[float(state.logprobs[c[0]])] if c else [] for c in conts]
        longest = max(len(c) for c in conts)
        if longest <= 1:
            return firsts
        batch = len(conts)
        pad = self.tokenizer.pad_token_id or 0
        ids = torch.tensor([c + [pad] * (longest - len(c)) for c in conts])
        mask = torch.ones(batch, state.length + longest, dtype=torch.long)
        for row, c in enumerate(conts):
            mask[row, state.length + len(c) :] = 0
        cache = copy.deepcopy(state.cache)
        cache.batch_repeat_interleave(batch)
        out = self._forward(ids[:, :-1], cache, mask=mask[:, :-1])
        logprobs = torch.log_softmax(out.logits.float(), dim=-1)
        rest = logprobs.gather(-1, ids[:, 1:].unsqueeze(-1)).squeeze(-1)
        return [first + rest[r, : max(len(c) - 1, 0)].tolist() for r, (first, c) in
                enumerate(zip(firsts, conts, strict=True))]  # fmt: skip

    @torch.inference_mode()
    def step(self, state: PrefixState, token: int) -> PrefixState:
        """Append one token in place (greedy decoding owns its state)."""
        out = self._forward(torch.tensor([[token]]), state.cache, keep=1)
        state.cache = _cache_of(out)
        state.logprobs = torch.log_softmax(out.logits[0, -1].float(), dim=-1)
        state.length += 1
        return state


def _cache_of(out: Any) -> Any:
    cache = getattr(out, "cache", None)
    return cache if cache is not None else out.past_key_values
