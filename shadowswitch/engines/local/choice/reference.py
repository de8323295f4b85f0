"""Reference tools: how well does a tool that has nothing to do with this request match it?

Cosine similarity has no fixed scale across writing styles: a long, formal question
("Calculate the future value of an investment of $1000 ...") resembles every tool a little,
a short chat line resembles none much. The relevance check therefore asks how much better the
offered tool matches than the best of a few thousand unrelated tools, the tool descriptions of
the development files (`reference_tools.json`, written by `bench.calibrate`; never the test
files). The calibration file names it (calibration.py): both are the prior. Reference tools that
are near copies of an offered tool are left out: they are not unrelated.

File format 1: {"format": 1, "fitted_on": "...", "texts": ["name: description", ...]}.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Sequence
from pathlib import Path

import torch

from shadowswitch.engines.local.runtime.encoder import TextEncoder
from shadowswitch.engines.local.runtime.lru import LRU

log = logging.getLogger(__name__)

FORMAT = 1
NEAR_COPY = 0.9  # cosine above which a reference tool counts as a copy of an offered one
TOOL_SETS = 256  # offered tool sets whose copies are kept (a few KB each)


class ReferenceTools:
    def __init__(self, vectors: torch.Tensor) -> None:
        self.vectors = vectors  # (n, dim) unit vectors
        self.copies_of: LRU[bytes, torch.Tensor] = LRU(TOOL_SETS)

    @classmethod
    def load(cls, encoder: TextEncoder, cache_dir: Path, path: Path | None) -> ReferenceTools:
        """Embed the reference texts once; later starts read the vectors from `cache_dir`.
        `path` None: no reference tools (the "answer directly" level then ignores them)."""
        texts = read_texts(path) if path is not None else []
        if not texts:
            return cls(torch.zeros(0, encoder.dim))
        key = [*encoder.cache_key, texts]
        digest = hashlib.sha256(json.dumps(key).encode()).hexdigest()
        cached = cache_dir / "reference" / f"{digest[:20]}.pt"
        if cached.exists():
            return cls(torch.load(cached))
        log.info("embedding %d reference tools (once; cached in %s)", len(texts), cached.parent)
        vectors = encoder.embed(texts)
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_name(f"{cached.name}.tmp{os.getpid()}")
        torch.save(vectors, tmp)
        tmp.replace(cached)  # atomic: a concurrent start never reads half a file
        return cls(vectors)

    def best(self, query: torch.Tensor, offered: torch.Tensor) -> float:
        """The highest cosine of `query` with a reference tool that copies no offered tool
        (`offered`: the offered tools' unit vectors, one per row); 0.0 with no references."""
        if not len(self.vectors):
            return 0.0
        sims = self.vectors @ query
        if len(offered):
            sims = sims.masked_fill(self._copies(offered), -1.0)
        return float(sims.max())

    def _copies(self, offered: torch.Tensor) -> torch.Tensor:
        """Which reference tools copy one of `offered`: the same for every request of a tool set
        (an agent sends its tools on every step), so kept per set rather than compared again."""
        key = hashlib.sha256(offered.float().numpy().tobytes()).digest()
        copies = self.copies_of.get(key)
        if copies is None:
            copies = (self.vectors @ offered.T).max(dim=1).values > NEAR_COPY
            self.copies_of.put(key, copies)
        return copies


def read_texts(path: Path) -> list[str]:
    """The reference texts of a file in format 1; raises ValueError for another format."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise ValueError(f"{path}: not a reference tools file in format {FORMAT}")
    return list(raw["texts"])


def write_texts(texts: Sequence[str], path: Path, fitted_on: str = "") -> None:
    """One text a line, sorted: a new calibration's changes read as a diff."""
    doc = {"format": FORMAT, "fitted_on": fitted_on, "texts": sorted(set(texts))}
    path.write_text(json.dumps(doc, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
