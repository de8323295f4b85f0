"""The bridge: a request in another language, read by multilingual-e5, placed where the English
encoder would have put the same request in English, so the English prior chooses for it.

e5 ranks English tools poorly from Chinese text, and its cosines are compressed (0.75-0.90 for
anything), so no "answer directly" level fitted on e5's scale carries over from English to
Chinese. The English encoder (all-MiniLM-L6-v2) has a prior fitted on the development files:
reference tools, value coverage, a metric. The bridge is a linear map from e5's query vector to
all-MiniLM's vector of the same text, fitted on English development texts only
(`python -m bench.bridge`): e5 puts a sentence and its translation close together, so the map
sends a Chinese request near the English vector of what it says. The tools, reference tools and
parameters stay English and are read by the English encoder as in English, so the tools'
vectors, the reference tools and the choice part of the English prior apply unchanged; values
are still read by e5 (the decider's value encoder), which knows Chinese words.

File format: a .npy array (dim_e5 + 1, dim_english), float16; the last row is the bias.

e5 places a translation near its original, not on it: a language adds its own offset to every
vector (Chinese requests sit apart from English ones whatever they ask), which the map, fitted
on English, reads as meaning. Before the map, a request's vector is moved by the difference of
the mean English and the mean vector of its language (`LanguageShift`, fitted on English
development requests and hand-written requests of that language, bench/bridge_data/),
in proportion to the share of its words in that language.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch

from shadowswitch.engines.local.language import is_multilingual
from shadowswitch.engines.local.languages import REGISTRY, reader
from shadowswitch.engines.local.runtime.encoder import TextEncoder
from shadowswitch.engines.local.runtime.lru import LRU
from shadowswitch.engines.local.runtime.multilingual import MULTILINGUAL_ID, MultilingualEncoder

PACKAGED_BRIDGE = Path(__file__).parents[1] / "priors" / "bridge-multilingual.npy"
PACKAGED_SHIFT = Path(__file__).parents[1] / "priors" / "bridge-language-shift.json"
SHIFT_FORMAT = 1
BRIDGE_ID = f"{MULTILINGUAL_ID}>all-MiniLM-L6-v2"  # its vectors' space, for learning's memory


def load_bridge(path: Path = PACKAGED_BRIDGE) -> torch.Tensor | None:
    """The map, or None where no bridge has been fitted."""
    if not path.exists():
        return None
    return torch.from_numpy(np.load(path, allow_pickle=False).astype(np.float32))


class LanguageShift:
    """Per language, the mean English e5 query vector minus the language's (unit vectors), and
    the gain that puts its bridged similarities on the English scale.

    A bridged Chinese request lands farther from the English vector of what it says than a
    bridged English one does (mean cosine 0.49 against 0.61 on bench/bridge_data/zh-en.tsv):
    the spread of its candidates' scores shrinks by that ratio, and the prior's softmax, fitted
    on English spreads, left Chinese choices below the policies' confidence levels. The gain is
    the ratio; the decider divides the softmax's temperature by it (order unchanged). Applied
    to the similarities themselves it also outweighed the "answer directly" bias on greetings
    (你好 → send_email): docs/chinese.md."""

    def __init__(self, shifts: dict[str, torch.Tensor], gains: dict[str, float] | None = None) -> None:
        self.shifts = shifts
        self.gains = gains or {}

    @classmethod
    def load(cls, path: Path = PACKAGED_SHIFT) -> LanguageShift:
        """The fitted shifts; none where no file has been written."""
        if not path.exists():
            return cls({})
        raw = json.loads(path.read_text(encoding="utf-8"))
        if raw.get("format") != SHIFT_FORMAT:
            raise ValueError(f"{path}: language shift format {raw.get('format')!r}, this version reads 1")
        shifts = {lang: torch.tensor(v) for lang, v in raw["shift"].items()}
        return cls(shifts, {lang: float(g) for lang, g in raw.get("gain", {}).items()})

    def write(self, path: Path, fitted_on: str) -> None:
        shift = {lang: [round(x, 6) for x in v.tolist()] for lang, v in self.shifts.items()}
        gain = {lang: round(g, 4) for lang, g in self.gains.items()}
        doc = {"format": SHIFT_FORMAT, "fitted_on": fitted_on, "gain": gain, "shift": shift}
        path.write_text(json.dumps(doc) + "\n", encoding="utf-8")

    def gain(self, text: str) -> float:
        """What the decider divides the softmax's temperature by for `text`: 1.0 in English, the
        language's gain in proportion to its share of the text."""
        return 1.0 + sum((gain - 1.0) * share(code, text) for code, gain in self.gains.items())

    def apply(self, texts: Sequence[str], vectors: torch.Tensor) -> torch.Tensor:
        for code, shift in self.shifts.items():
            shares = torch.tensor([share(code, t) for t in texts]).unsqueeze(1)
            vectors = vectors + shares * shift
        return vectors


def share(code: str, text: str) -> float:
    """The share of `text`'s words in language `code` (its reader's `share`); 0.0 for a language
    the fitted file names but no reader is registered for."""
    return reader(code).share(text) if code in REGISTRY else 0.0


def apply_bridge(matrix: torch.Tensor, vectors: torch.Tensor) -> torch.Tensor:
    """Unit vectors in the English encoder's space for e5's unit vectors (n, dim_e5)."""
    ones = torch.ones(len(vectors), 1)
    return torch.nn.functional.normalize(torch.cat([vectors.float(), ones], 1) @ matrix, dim=-1)


def fit_bridge(source: torch.Tensor, target: torch.Tensor, l2: float = 0.1) -> torch.Tensor:
    """Ridge regression of `target` (English encoder) on `source` (e5) vectors, with a bias row."""
    x = torch.cat([source.float(), torch.ones(len(source), 1)], 1)
    matrix: torch.Tensor = torch.linalg.solve(x.T @ x + l2 * torch.eye(x.shape[1]), x.T @ target.float())
    return matrix


class BridgedEncoder:
    """The `TextEncoder` the multilingual decider chooses with: requests (`embed`) through e5 and
    the bridge, passages (`embed_cached`: tools, reference tools) through the English encoder."""

    name = BRIDGE_ID

    def __init__(
        self,
        e5: MultilingualEncoder,
        english: TextEncoder,
        matrix: torch.Tensor,
        shift: LanguageShift | None = None,
    ) -> None:
        self.e5, self.english, self.matrix = e5, english, matrix
        self.shift = shift or LanguageShift({})
        self.dim = english.dim

    @property
    def cache_key(self) -> list[str]:
        return [BRIDGE_ID, *self.english.cache_key]

    def embed(self, texts: Sequence[str], remember: Sequence[str] = ()) -> torch.Tensor:
        if remember:
            self.english.embed_cached(remember)
        if not texts:
            return torch.zeros(0, self.dim)
        return apply_bridge(self.matrix, self.shift.apply(texts, self.e5.embed(texts)))

    def embed_cached(self, texts: Sequence[str]) -> torch.Tensor:
        return self.english.embed_cached(texts)


class BridgedValues:
    """Values and parameters in the English encoder's space, so the English prior's value weights
    read their similarity on the scale they were fitted on: text the multilingual encoder should
    read (language.is_multilingual: 巴黎, 2027年3月14日) through e5 and the bridge, other text
    (parameter descriptions, BK-1041, Boston) as the English encoder reads it."""

    def __init__(self, bridged: BridgedEncoder, cache_size: int = 8192) -> None:
        self.bridged = bridged
        self.dim = bridged.dim
        self.name = BRIDGE_ID
        self.cache: LRU[str, torch.Tensor] = LRU(cache_size)

    @property
    def cache_key(self) -> list[str]:
        return self.bridged.cache_key

    def embed(self, texts: Sequence[str], remember: Sequence[str] = ()) -> torch.Tensor:
        return self.embed_cached(texts)

    def embed_cached(self, texts: Sequence[str]) -> torch.Tensor:
        if not texts:
            return torch.zeros(0, self.dim)
        unique = list(dict.fromkeys(texts))
        foreign = [t for t in unique if is_multilingual(t)]
        for text in [t for t in foreign if self.cache.get(t) is None]:
            self.cache.put(text, self.bridged.embed([text])[0])
        english = [t for t in unique if t not in foreign]
        found = dict(zip(english, self.bridged.english.embed_cached(english), strict=True)) if english else {}
        for text in foreign:
            vector = self.cache.get(text)
            found[text] = vector if vector is not None else self.bridged.embed([text])[0]
        return torch.stack([found[t] for t in texts])
