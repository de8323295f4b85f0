"""Causal-LM scoring: cached prompt prefixes, batched continuation log-probs, greedy steps."""

from __future__ import annotations

import copy
import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import torch

from shadowswitch.engines.local.runtime import budget
from shadowswitch.engines.local.runtime.chat import ChatFormat, System, Turn
from shadowswitch.engines.local.runtime.lru import LRU

Prompt = str | System | Turn  # text as is, or a turn written in the model's chat format


@dataclass
class PrefixState:
    """A prompt already run through the model: its KV cache and the next-token log-probs."""

    cache: Any
    logprobs: torch.Tensor  # (vocab,)
    length: int


class ContinuationScorer(Protocol):
    """What choosing asks of an LM, in this process (`LanguageModel`) or behind a server."""

    format: ChatFormat

    def ids(self, text: str) -> list[int]: ...

    def score_after(
        self, fixed: Prompt, variable: Prompt, continuations: Sequence[Sequence[int]]
    ) -> list[list[float]]: ...


class PromptWriter:
    """Prompts as the LM reads them, from its tokenizer and chat format: what the in-process LM and
    the remote one (runtime/remote.py) share."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        self.format = ChatFormat.of(tokenizer)

    def ids(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def text(self, prompt: Prompt) -> str:
        """`prompt` written in this model's chat format (a plain string stays as it is)."""
        if isinstance(prompt, System):
            return self.format.fixed(prompt)
        if isinstance(prompt, Turn):
            return self.format.variable(prompt)
        return prompt


class LanguageModel(PromptWriter):
    """Wraps a transformers causal LM; every method is meant for the one worker thread."""

    def __init__(self, model: Any, tokenizer: Any, cache_size: int = 64) -> None:
        super().__init__(tokenizer)
        self.model = model
        budget.interruptible(model)  # a long pass stops at the decision's deadline
        self.prefixes: LRU[str, PrefixState] = LRU(cache_size)
        params = inspect.signature(model.forward).parameters
        self._cache_kw = "cache" if "cache" in params else "past_key_values"
        weight = model.get_output_embeddings().weight
        # an int8 layer (`engine.precision`) hands its weight out through a method
        self.vocab_size = int((weight() if callable(weight) else weight).shape[0])

    @torch.inference_mode()
    def start(self, fixed: Prompt, variable: Prompt = "") -> PrefixState:
        """The state after `fixed + variable`; the fixed part's KV cache is reused across calls."""
        fixed, variable = self.text(fixed), self.text(variable)
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

    def _forward(self, ids: torch.Tensor, cache: Any, keep: int = 0, **extra: Any) -> Any:
        kwargs = {self._cache_kw: cache, "use_cache": True, "logits_to_keep": keep}
        return self.model(input_ids=ids, **kwargs, **extra)

    @torch.inference_mode()
    def score_after(
        self, fixed: Prompt, variable: Prompt, continuations: Sequence[Sequence[int]]
    ) -> list[list[float]]:
        """`score` after the prompt `fixed + variable`, the fixed part's KV cache reused across
        calls. On a miss one pass computes the fixed part too, and its cache is kept from there."""
        fixed, variable = self.text(fixed), self.text(variable)
        state = self.prefixes.get(fixed)
        if state is not None:
            return self.score(state, continuations, self.ids(variable))
        head = self.ids(fixed)
        start = PrefixState(None, torch.empty(0), 0)
        scores, logprobs, cache, n = self._score(start, head + self.ids(variable), continuations, len(head))
        if cache is not None:
            if n > len(head):  # keep the fixed part: its tokens saw nothing after them
                cache.crop(len(head) - n)  # negative: tokens to drop (crop(0) empties it on 4.x)
            self.prefixes.put(fixed, PrefixState(cache, logprobs[0], len(head)))
        return scores

    @torch.inference_mode()
    def score(
        self, state: PrefixState, continuations: Sequence[Sequence[int]], between: Sequence[int] = ()
    ) -> list[list[float]]:
        """Per-token log-probs of each continuation after `state` and then `between` (the
        request's own text), all in one forward pass.

        One row holds `between` and every continuation side by side; the attention mask lets a
        continuation see the prefix, `between` and its own earlier tokens, and its positions start
        where `between` ends, so each is scored as if it alone followed. On a CPU a pass of a few
        dozen tokens costs about as much as reading the weights once: one pass instead of one for
        `between` and one more for the continuations."""
        return self._score(state, list(between), continuations)[0]

    def _score(
        self, state: PrefixState, lead: list[int], continuations: Sequence[Sequence[int]], first: int = 0
    ) -> tuple[list[list[float]], torch.Tensor, Any, int]:
        """(scores, log-probs from after `lead[:first]` on, the cache, tokens run): see `score`."""
        conts = [list(c) for c in continuations]
        if not conts or (not lead and max(len(c) for c in conts) <= 1):
            return [[float(state.logprobs[c[0]])] if c else [] for c in conts], state.logprobs, None, 0
        inputs, positions, owner = list(lead), list(range(len(lead))), [-1] * len(lead)
        for k, c in enumerate(conts):
            inputs += c[:-1]  # the last token is predicted, never read
            positions += range(len(lead), len(lead) + len(c) - 1)
            owner += [k] * (len(c) - 1)
        skip = max(min(first, len(lead)) - 1, 0)  # inputs whose next token nobody asks about
        logprobs, cache = self._tree(state, inputs, positions, owner, keep=len(inputs) - skip)
        after_lead = logprobs[len(lead) - 1 - skip] if lead else state.logprobs
        out, row = [], len(lead) - skip  # row of the first continuation's first input token
        for c in conts:
            scores = [float(after_lead[c[0]])] if c else []
            scores += [float(logprobs[row + j - 1][c[j]]) for j in range(1, len(c))]
            out.append(scores)
            row += max(len(c) - 1, 0)
        return out, logprobs, cache, len(inputs)

    def _tree(
        self, state: PrefixState, inputs: list[int], positions: list[int], owner: list[int], keep: int
    ) -> tuple[torch.Tensor, Any]:
        """Log-probs after each of the last `keep` input tokens, and the cache; `owner` -1 marks
        the shared part, k continuation k."""
        n, past = len(inputs), state.length
        own = torch.tensor(owner)
        causal = torch.ones(n, n, dtype=torch.bool).tril()
        # A token sees the shared tokens before it and the tokens of its own continuation.
        sees = causal & ((own == -1)[None, :] | (own[:, None] == own[None, :]))
        allowed = torch.cat([torch.ones(n, past, dtype=torch.bool), sees], dim=1)
        dtype = self.model.dtype
        mask = torch.zeros(1, 1, n, past + n, dtype=dtype).masked_fill(~allowed, torch.finfo(dtype).min)
        cache = copy.deepcopy(state.cache)  # the forward appends to it; the state stays usable
        out = self._forward(
            torch.tensor([inputs]),
            cache,
            keep,
            attention_mask=mask,
            position_ids=torch.tensor([[past + p for p in positions]]),
        )
        return torch.log_softmax(out.logits[0].float(), dim=-1), _cache_of(out)

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
