"""The sentence encoder tuned to a task type's choices, in a learning run.

Where the policy says `engine.tune_encoder` and every pair kept the user's words it read
(`Exemplar.texts`), a run tunes the encoder's top layers on the pairs it learns from
(`engines/local/runtime/finetune.py`, SetFit-style) and reads every pair again with them: the
trained head, the neighbours' vote and the certificate then work on the tuned vectors. Each block
that cross-fitting holds out is read by an encoder tuned without it, so no pair judges a tuning it
was part of. The zero-shot ranking and the context vectors stay the frozen encoder's: they compare
with the tools' texts, which the tuning never saw.

A promoted state keeps its tuned layers and its exemplars' tuned vectors (`pack`): the server
reads its state's neighbours without the models, and the engine reads each request's words with
the tuned layers (`Decider`, the state's `tuned`).

The server's runs are processes of their own at the lowest priority, on one torch thread
(`background.py`); the tuning offers the core to the server every `finetune.SLICE_S` besides.
"""

from __future__ import annotations

import functools
import io
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from shadowswitch.learning.fit import Pair
from shadowswitch.store.tables import Exemplar

if TYPE_CHECKING:  # torch is imported where a run tunes or reads, not by every learning process
    from shadowswitch.engines.local.runtime.encoder import Encoder
    from shadowswitch.engines.local.runtime.finetune import Tuned

log = logging.getLogger(__name__)
TUNABLE = {"all-MiniLM-L6-v2"}  # encoders whose layers the trainer can tune (`Encoder.name`)
MIN_LABELS = 2  # distinct first choices to contrast
# User turns (their first steps' words, each labelled by its first choice) a run tunes on at
# least. With 74 (the shop agent at 400 pairs) the tuned state's certificate came and went from
# run to run; with 116 (the help desk at 400) and 170 or more it served more, as often right.
MIN_TURNS = 100

Read = Callable[[Sequence[Pair]], list[Pair]]  # pairs as one encoder reads them


def texts_of(rows: Sequence[Exemplar]) -> dict[int, str] | None:
    """Each pair's words (its query text); None unless every pair kept them."""
    out: dict[int, str] = {}
    for row in rows:
        texts = row.texts if isinstance(row.texts, dict) else None
        if not texts or not isinstance(texts.get("query"), str):
            return None
        out[row.id or 0] = texts["query"]
    return out


@functools.cache
def frozen() -> tuple[Any, Any]:
    """The embedded encoder in float32 and its tokenizer, loaded once per process."""
    from shadowswitch.engines.local.runtime.models import load_encoder

    return load_encoder("float32")


@dataclass
class Tuning:
    """A run's tuning: the pairs' texts, read and tuned on with the frozen encoder."""

    texts: dict[int, str]
    seed: int = 0
    runs: list[dict[str, float]] = field(default_factory=list)  # one per tuning: pairs, seconds

    def _load(self) -> tuple[Any, Any]:
        return frozen()

    def turns(self, pairs: Sequence[Pair]) -> dict[str, str]:
        """The words of each user turn in `pairs`, labelled by the turn's first choice."""
        from shadowswitch.engines.local.runtime.finetune import first_labels

        texts = [self.texts[p.id] for p in pairs]
        return first_labels(texts, [p.label for p in pairs], [p.step for p in pairs])

    def enough(self, pairs: Sequence[Pair]) -> bool:
        """Are there turns enough in `pairs` to tune on (`MIN_TURNS`, two choices at least)?"""
        labelled = self.turns(pairs)
        return len(labelled) >= MIN_TURNS and len(set(labelled.values())) >= MIN_LABELS

    def tune(self, pairs: Sequence[Pair]) -> Tuned | None:
        """The top layers tuned on the user turns of `pairs` (`turns`); None when they hold
        fewer than two choices to contrast."""
        from shadowswitch.engines.local.runtime.finetune import tune

        labelled = self.turns(pairs)
        if len(set(labelled.values())) < MIN_LABELS:
            return None
        model, tokenizer = self._load()
        tuned = tune(model, tokenizer, labelled, seed=self.seed)
        if tuned is not None:
            self.runs.append({"pairs": tuned.pairs, "seconds": round(tuned.seconds, 1)})
        return tuned

    def reader(self, tuned: Tuned | None, key: str | None = None) -> Read:
        """How the encoder with `tuned`'s layers reads pairs (None: as stored, the frozen
        encoder's): their words tuned, their purpose frozen (`purpose`). A pair without texts
        keeps its stored vectors. `key`: a stored state's digest, whose encoder (and the texts it
        read) this process keeps for the next call (`learn status` on a tuned state)."""
        if tuned is None:
            return list
        encoders: list[Encoder] = []  # made on first use

        def read(pairs: Sequence[Pair]) -> list[Pair]:
            known = [p for p in pairs if p.id in self.texts]
            wanted = sorted({self.texts[p.id] for p in known})
            if not wanted:
                return list(pairs)
            if not encoders:
                kept = _KEPT.get(key) if key is not None else None
                encoders.append(kept or _encoder(tuned, self._load()))
                if key is not None:
                    _KEPT.clear()  # one stored state's at a time
                    _KEPT[key] = encoders[0]
            vectors = dict(zip(wanted, encoders[0].embed_cached(wanted).numpy(), strict=True))
            return [
                replace(
                    p,
                    vector=vectors[self.texts[p.id]].astype(np.float32),
                    opening=purpose(p.vector, p.opening),
                )
                if p.id in self.texts
                else p
                for p in pairs
            ]

        return read


_KEPT: dict[str | None, Encoder] = {}


def _encoder(tuned: Tuned, frozen: tuple[Any, Any]) -> Encoder:
    from shadowswitch.engines.local.runtime.encoder import Encoder

    return Encoder(tuned.apply(frozen[0]), frozen[1], cache_size=1 << 16)


def purpose(words: np.ndarray[Any, Any], opening: np.ndarray[Any, Any] | None) -> np.ndarray[Any, Any]:
    """What a tuned state reads as the conversation's purpose: the frozen encoder's vector of the
    user's opening words, or of their words when this turn is the opening. The tuning labels a
    turn by its first step, and the first step of most openings is the same question back ("your
    email, please?"), so tuned vectors of openings would no longer tell one purpose from another."""
    return opening if opening is not None else words


def tuning_for(rows: Sequence[Exemplar]) -> Tuning | None:
    """The pairs' texts to read and tune on, or None: an encoder the trainer cannot tune, or
    pairs that kept no texts (learned before the policy tuned, or with it off)."""
    if not rows or rows[0].encoder not in TUNABLE:
        return None
    texts = texts_of(rows)
    return Tuning(texts) if texts is not None else None


def served_reader(packed: bytes | None, tuning: Tuning | None, key: str | None = None) -> Read:
    """How a stored state reads pairs: as stored (frozen, `packed` None), with its tuned layers
    where the pairs kept their texts, else its exemplars' stored vectors (newer pairs as stored)."""
    if packed is None:
        return list
    state = unpack(packed)
    if tuning is None:
        return state.read
    encode = tuning.reader(state.tuned, key)

    def read(pairs: Sequence[Pair]) -> list[Pair]:
        newer = encode([p for p in pairs if p.id not in state.vectors])  # the rest it stored
        later = iter(newer)
        return [next(later) if p.id not in state.vectors else p for p in state.read(pairs)]

    return read


def pack(tuned: Tuned, pairs: Sequence[Pair]) -> bytes:
    """A state's tuned layers and its exemplars' vectors as they read them (float16)."""
    out = io.BytesIO()
    dim = len(pairs[0].vector) if pairs else 0
    openings = np.full((len(pairs), dim), np.nan, dtype=np.float16)
    for i, p in enumerate(pairs):
        if p.opening is not None:
            openings[i] = p.opening
    np.savez_compressed(
        out,
        layers=np.frombuffer(tuned.to_bytes(), dtype=np.uint8),
        ids=np.array([p.id for p in pairs], dtype=np.int64),
        vectors=np.stack([p.vector for p in pairs]).astype(np.float16) if pairs else np.zeros((0, 0)),
        openings=openings,
    )
    return out.getvalue()


@dataclass(frozen=True)
class Packed:
    """A stored state's tuning: its layers, and its exemplars' vectors and openings by id."""

    tuned: Tuned
    vectors: dict[int, np.ndarray[Any, Any]]
    openings: dict[int, np.ndarray[Any, Any] | None]

    def read(self, pairs: Sequence[Pair]) -> list[Pair]:
        """The pairs it learned from as it reads them; others as stored."""
        return [
            replace(p, vector=self.vectors[p.id], opening=self.openings[p.id]) if p.id in self.vectors else p
            for p in pairs
        ]


def unpack(data: bytes) -> Packed:
    from shadowswitch.engines.local.runtime.finetune import Tuned

    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        tuned = Tuned.from_bytes(z["layers"].tobytes())
        ids = [int(i) for i in z["ids"]]
        vectors = z["vectors"].astype(np.float32)
        openings = z["openings"].astype(np.float32)
    return Packed(
        tuned,
        {i: _unit(v) for i, v in zip(ids, vectors, strict=True)},
        {i: None if np.isnan(o).any() else _unit(o) for i, o in zip(ids, openings, strict=True)},
    )


def _unit(v: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    return (v / max(float(np.linalg.norm(v)), 1e-9)).astype(np.float32)


def figures(wanted: bool, reading: Tuning | None, tuned: Tuned | None) -> dict[str, Any]:
    """Whether the challenger reads with a tuned encoder, and what its tunings cost."""
    if tuned is not None and reading is not None:
        return {"tuned": True, "tunings": reading.runs}
    why = (
        "the policy does not tune it"
        if not wanted
        else f"fewer than {MIN_TURNS} user turns, pairs that kept no texts, or no tunable encoder"
    )
    return {"tuned": False, "why_not": why}
