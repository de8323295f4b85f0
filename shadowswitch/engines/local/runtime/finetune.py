"""Fine-tune the sentence encoder to a task type's choices, SetFit-style.

Pairs of the task type's query texts are drawn from its labelled requests: two texts whose first
choice of the user turn was the same tool are a positive pair (cosine 1), two with different
first choices a negative one (cosine 0), and the top layers of a copy of the encoder are fitted
to those cosines (SetFit's `CosineSimilarityLoss`); the layers below stay as they are, and their
output for each text is computed once. Only the turn's first choice labels a text: the query is
the last user turn, which stays the same while the agent calls a look-up, then the change, then
answers, so later steps' labels would pull the same text three ways.

What is tuned is kept as a `Tuned`: the top layers' weights in float16, a few MB; `apply` gives
the encoder that reads with them. Measured against the frozen encoder by `bench/learning_finetune.py`
(docs/benchmarks/learning.md); learning runs tune it (`learning/tuning.py`) where exemplars keep their texts.
"""

from __future__ import annotations

import copy
import io
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

LAYERS = 2  # top transformer layers tuned
EPOCHS = 1
PER_TEXT = 20  # pairs drawn per distinct text and epoch (SetFit's default iterations)
MAX_PAIRS = 1500  # pairs per epoch at most (25-35 CPU seconds on one thread)
BATCH = 16
LR = 2e-5  # SetFit's body learning rate
MAX_TOKENS = 128
SLICE_S = 0.05  # trains this long, then offers the CPU to everything else


@dataclass(frozen=True)
class Tuned:
    """The tuned top layers of the encoder: which layers (indexes) and their weights."""

    first: int  # index of the first tuned layer
    weights: dict[str, np.ndarray[Any, Any]]  # parameter name (within `encoder.layer`) -> values
    pairs: int = 0  # pairs it was tuned on
    seconds: float = 0.0  # wall clock
    cpu_seconds: float = 0.0  # of the tuning thread: what the budget is about on a shared machine

    def to_bytes(self) -> bytes:
        out = io.BytesIO()
        arrays: dict[str, Any] = {f"w:{k}": v.astype(np.float16) for k, v in self.weights.items()}
        arrays.update(first=np.array(self.first), pairs=np.array(self.pairs))
        np.savez_compressed(out, **arrays)
        return out.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> Tuned:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            weights = {k[2:]: z[k].astype(np.float32) for k in z.files if k.startswith("w:")}
            return cls(int(z["first"]), weights, int(z["pairs"]))

    def apply(self, model: Any) -> Any:
        """A model that reads with these layers: `model`'s embeddings and lower layers shared, not
        copied (a tuned state costs its top layers, a few MB), the tuned layers its own."""
        stack = _layers(model)
        tuned = [copy.deepcopy(stack[i]) for i in range(self.first, len(stack))]
        for offset, layer in enumerate(tuned):
            for name, param in layer.named_parameters():
                key = f"{self.first + offset}.{name}"
                if key in self.weights:
                    param.data.copy_(torch.from_numpy(self.weights[key]).to(param.dtype))
        out = copy.copy(model)  # shallow: the module dicts are replaced below, never mutated
        out._modules = dict(model._modules)
        encoder = copy.copy(model.encoder)
        encoder._modules = dict(model.encoder._modules)
        encoder.layer = torch.nn.ModuleList([*stack[: self.first], *tuned])
        out.encoder = encoder
        return out.eval()


def first_labels(texts: Sequence[str], labels: Sequence[str], steps: Sequence[int]) -> dict[str, str]:
    """Each query text's label: the choice at the first step of its user turn."""
    out: dict[str, str] = {}
    for text, label, step in zip(texts, labels, steps, strict=True):
        if step == 0 and text.strip():
            out.setdefault(text, label)
    return out


def contrastive_pairs(
    labelled: dict[str, str], rng: random.Random, most: int = MAX_PAIRS
) -> list[tuple[str, str, float]]:
    """Positive and negative pairs in equal numbers, `PER_TEXT` per text (at most `most`)."""
    by_label: dict[str, list[str]] = {}
    for text, label in labelled.items():
        by_label.setdefault(label, []).append(text)
    texts = list(labelled)
    if len(by_label) < 2:
        return []
    pairs = []
    for text in texts:
        same = by_label[labelled[text]]
        for _ in range(PER_TEXT // 2):
            if len(same) > 1:
                other = rng.choice(same)
                while other == text:
                    other = rng.choice(same)
                pairs.append((text, other, 1.0))
            other = rng.choice(texts)
            while labelled[other] == labelled[text]:
                other = rng.choice(texts)
            pairs.append((text, other, 0.0))
    rng.shuffle(pairs)
    return pairs[:most]


def tune(
    model: Any,
    tokenizer: Any,
    labelled: dict[str, str],
    seed: int = 0,
    epochs: int = EPOCHS,
    layers: int = LAYERS,
    most: int = MAX_PAIRS,
    stop: Callable[[], bool] | None = None,
) -> Tuned | None:
    """Tune the top `layers` of a float32 copy of `model` on pairs of `labelled` texts (text ->
    its first choice), `most` pairs an epoch; None when there is nothing to contrast (one label)
    or `stop` says so.

    Every `SLICE_S` of work it yields the GIL and the core, so that a caller beside requests
    (a lowest-priority thread, one torch thread) keeps them going."""
    rng = random.Random(seed)
    torch.manual_seed(seed)
    if len({*labelled.values()}) < 2:
        return None
    started, cpu = time.monotonic(), time.thread_time()
    work = copy.deepcopy(model).to(torch.float32)
    stack = _layers(work)
    first = len(stack) - layers
    for p in work.parameters():
        p.requires_grad_(False)
    params = [p for layer in stack[first:] for p in layer.parameters()]
    for p in params:
        p.requires_grad_(True)
    texts = list(labelled)
    index = {t: i for i, t in enumerate(texts)}
    below, masks = _below(work, tokenizer, texts, first)
    optimiser = torch.optim.AdamW(params, lr=LR)
    work.train()
    pairs_seen = 0
    slice_start = time.monotonic()
    for _ in range(epochs):
        pairs = contrastive_pairs(labelled, rng, most)
        for k in range(0, len(pairs), BATCH):
            if stop is not None and stop():
                return None
            batch = pairs[k : k + BATCH]
            left = [index[a] for a, _, _ in batch]
            right = [index[b] for _, b, _ in batch]
            target = torch.tensor([y for _, _, y in batch])
            u = _top(stack[first:], below, masks, left)
            v = _top(stack[first:], below, masks, right)
            loss: Any = torch.nn.functional.mse_loss(torch.nn.functional.cosine_similarity(u, v), target)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            pairs_seen += len(batch)
            if time.monotonic() - slice_start > SLICE_S:
                time.sleep(0.001)  # the GIL and the core to a request, if one waits
                slice_start = time.monotonic()
    weights = {
        name: param.detach().numpy().copy()
        for name, param in stack.named_parameters()
        if int(name.split(".", 1)[0]) >= first
    }
    return Tuned(first, weights, pairs_seen, time.monotonic() - started, time.thread_time() - cpu)


def _layers(model: Any) -> Any:
    """The encoder's stack of transformer layers (BERT: `encoder.layer`)."""
    return model.encoder.layer


def _below(model: Any, tokenizer: Any, texts: list[str], first: int) -> tuple[list[Any], list[Any]]:
    """Each text's hidden states entering layer `first` (the frozen layers run once per text)."""
    hidden, masks = [], []
    with torch.no_grad():
        for k in range(0, len(texts), BATCH):
            batch = tokenizer(
                texts[k : k + BATCH],
                truncation=True,
                max_length=MAX_TOKENS,
                padding=True,
                return_tensors="pt",
            )
            out = model(**batch, output_hidden_states=True)
            states = out.hidden_states[first]
            for i in range(len(states)):
                n = int(batch["attention_mask"][i].sum())
                hidden.append(states[i, :n].clone())
                masks.append(n)
            time.sleep(0)
    return hidden, masks


def _top(layers: Any, below: list[Any], lengths: list[int], rows: list[int]) -> Any:
    """Mean-pooled outputs of the tuned layers for the texts `rows`, from their frozen inputs."""
    width = max(lengths[i] for i in rows)
    x = torch.zeros(len(rows), width, below[rows[0]].shape[-1])
    mask = torch.zeros(len(rows), width)
    for j, i in enumerate(rows):
        x[j, : lengths[i]] = below[i]
        mask[j, : lengths[i]] = 1.0
    extended = (1.0 - mask[:, None, None, :]) * torch.finfo(torch.float32).min
    for layer in layers:
        out = layer(x, attention_mask=extended)
        x = out[0] if isinstance(out, tuple) else out
    pooled = (x * mask[..., None]).sum(1) / mask.sum(1, keepdim=True).clamp(min=1e-9)
    return pooled
