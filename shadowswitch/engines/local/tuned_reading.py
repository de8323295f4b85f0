"""A request's words as a learned state with a tuned encoder reads them.

A state learned with the encoder's top layers tuned to its task type (`learning/tuning.py`) keeps
its exemplars' vectors as those layers read them, so its trained head and its neighbours read the
request's words with them too. The zero-shot ranking, the agent's reply and the conversation's
purpose stay the frozen encoder's; each tuned encoder shares the frozen one's lower layers and is
kept per state, by the digest of its layers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from shadowswitch.engines.local.conversation import query_text
from shadowswitch.engines.local.learned_state import LearnedState
from shadowswitch.engines.local.runtime.encoder import Encoder, TextEncoder
from shadowswitch.engines.local.runtime.lru import LRU
from shadowswitch.request import ChatView

STATES = 4  # tuned encoders kept (one per served state that has one)
TEXTS = 1024  # vectors each keeps: a turn's steps read the same words again

Vector = np.ndarray[Any, Any]


class TunedReaders:
    def __init__(self, frozen: TextEncoder) -> None:
        self.frozen = frozen
        self.encoders: LRU[str, Encoder] = LRU(STATES)

    def read(
        self, memory: LearnedState | None, request: ChatView, vector: Vector, opening: Vector | None
    ) -> tuple[Vector, Vector | None]:
        """The words' and the purpose's vectors for `memory`: as given (`vector`, `opening`, the
        frozen encoder's) unless the state reads with tuned layers; then the words are read with
        them, and the purpose is the frozen opening's, or the frozen words' in a first turn (as
        `learning.tuning.purpose`: tuned, every opening reads alike)."""
        encoder = self._encoder(memory)
        if encoder is None:
            return vector, opening
        words = encoder.embed_cached([query_text(request)])[0].float().numpy().astype(np.float32)
        return words, opening if opening is not None else vector

    def _encoder(self, memory: LearnedState | None) -> Encoder | None:
        tuned, digest = getattr(memory, "tuned", None), getattr(memory, "tuned_digest", None)
        if tuned is None or digest is None or not isinstance(self.frozen, Encoder):
            return None
        encoder = self.encoders.get(digest)
        if encoder is None:
            frozen = self.frozen
            encoder = Encoder(tuned.apply(frozen.model), frozen.tokenizer, cache_size=TEXTS)
            self.encoders.put(digest, encoder)
        return encoder
