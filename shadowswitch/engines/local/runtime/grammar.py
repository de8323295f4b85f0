"""Greedy decoding of one JSON value constrained by its JSON schema, through xgrammar."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import torch

from shadowswitch.engines.local.runtime.lm import LanguageModel, PrefixState
from shadowswitch.engines.local.runtime.lru import LRU


def _none() -> None:
    return None


class SchemaDecoder:
    """Compiles schemas once (LRU) and decodes short values greedily; never writes invalid JSON."""

    def __init__(self, lm: LanguageModel, cache_size: int = 256) -> None:
        import xgrammar as xgr

        self.lm = lm
        info = xgr.TokenizerInfo.from_huggingface(lm.tokenizer, vocab_size=lm.vocab_size)
        self.compiler = xgr.GrammarCompiler(info, max_threads=1)
        self.compiled: LRU[str, Any] = LRU(cache_size)

    def _grammar(self, schema: dict[str, Any]) -> Any:
        """The value followed by the `,` or `}` that ends it inside an arguments object.

        The terminator lets the model pick natural merged tokens such as `",` and makes
        "the value is finished" the model's own decision.
        """
        import xgrammar as xgr

        key = json.dumps(schema, sort_keys=True)
        found = self.compiled.get(key)
        if found is None:
            value = xgr.Grammar.from_json_schema(key, any_whitespace=False, strict_mode=False)
            end = xgr.Grammar.from_ebnf('root ::= "," | "}"')
            found = self.compiler.compile_grammar(xgr.Grammar.concat(value, end))
            self.compiled.put(key, found)
        return found

    def decode(
        self, state: PrefixState, schema: dict[str, Any], max_tokens: int, check: Callable[[], None] = _none
    ) -> Any:
        """The value the model writes after `state`; raises ValueError when it does not finish.
        `check` runs before every pass (the decision's deadline: it raises to stop the decoding)."""
        import xgrammar as xgr

        matcher = xgr.GrammarMatcher(self._grammar(schema), terminate_without_stop_token=True)
        bitmask = xgr.allocate_token_bitmask(1, self.lm.vocab_size)
        # Decode on a copy: callers keep using their state.
        state = PrefixState(copy.deepcopy(state.cache), state.logprobs.clone(), state.length)
        text = ""
        for _ in range(max_tokens):
            check()
            forced = matcher.find_jump_forward_string()
            if forced:
                matcher.accept_string(forced)
                text += forced
            if matcher.is_terminated():
                return json.loads(text[:-1])
            if forced:
                state = self.lm.extend(state, self.lm.ids(forced))
            token = self._next(state, matcher, bitmask)
            text += self.lm.tokenizer.decode([token])
            if matcher.is_terminated():
                return json.loads(text[:-1])
            state = self.lm.step(state, token)
        raise ValueError("value did not finish within the token budget")

    def _next(self, state: PrefixState, matcher: Any, bitmask: torch.Tensor) -> int:
        import xgrammar as xgr

        logits = state.logprobs.unsqueeze(0).clone()
        matcher.fill_next_token_bitmask(bitmask)
        xgr.apply_token_bitmask_inplace(logits, bitmask)
        token = int(torch.argmax(logits[0]))
        if not matcher.accept_token(token):
            raise ValueError("grammar rejected its own token")
        return token
