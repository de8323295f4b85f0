"""Frozen against fine-tuned encoder, on the help desk's and the shop's pairs, without the proxy.

Each agent's steps (bench/learning_helpdesk.py, bench/learning_shop.py: the same splits, test
requests in wording or customers the stream never showed) are decided by the local engine as the
proxy would in shadow, and each becomes a pair: the query vector, the engine's zero-shot
probabilities, the upstream's choice and the point of the turn. The arguments are taken as
agreeing whenever the choice does, so the figures are the *choice's*: a state learned on the
stream pairs (`fit.fit`, the head and the vote) decides the test pairs, with the frozen encoder's
vectors, then with those of an encoder fine-tuned on the stream's texts (`engines/local/runtime/finetune.py`);
the zero-shot ranking stays the frozen encoder's in both. Reported per encoder: top-1 accuracy,
the fitted threshold's coverage and agreement, the coverage the test pairs certify at the target
(`certificate.certify`), and the tuning time per 1,000 pairs on one torch thread.

    python -m bench.learning_finetune [--traffic helpdesk shop] [--out bench/results/learning_finetune.json]
"""

from __future__ import annotations

import argparse
import json
import pickle
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from shadowswitch.engines.local.choice.candidates import build_candidates
from shadowswitch.engines.local.conversation import called_this_turn, query_text, turn_state
from shadowswitch.engines.local.decider import Decider
from shadowswitch.engines.local.runtime import finetune
from shadowswitch.engines.local.runtime.encoder import Encoder
from shadowswitch.learning import challenger, utility_gate
from shadowswitch.learning.certificate import certify
from shadowswitch.learning.fit import NO_TOOL, Pair, args_rate, fit
from shadowswitch.learning.memory import FLOOR
from shadowswitch.policy.models import Policy
from shadowswitch.request import ChatView

TARGET = 0.95
OUT = Path("bench/results/learning_finetune.json")


def traffics() -> dict[str, Callable[[], tuple[list[Any], list[Any], dict[str, Any]]]]:
    from bench.learning_helpdesk import helpdesk_steps
    from bench.learning_helpdesk import policy as helpdesk_policy
    from bench.learning_shop import policy as shop_policy
    from bench.learning_shop import shop_steps

    return {
        "helpdesk": lambda: (*helpdesk_steps(), helpdesk_policy("http://127.0.0.1:1")),
        "shop": lambda: (*shop_steps(), shop_policy("http://127.0.0.1:1")),
    }


def pairs_of(decider: Decider, steps: Sequence[Any], policy: Policy, start: int) -> list[tuple[Pair, str]]:
    """Each step the engine decides by its words (not by rule) as a pair, with its query text."""
    out = []
    for i, step in enumerate(steps):
        view = ChatView.parse(step.request)
        cset = build_candidates(view, policy)
        if cset.abstain_reason or cset.forced or not cset.candidates:
            continue  # decided by rule: no pair
        text = query_text(view)
        with torch.inference_mode():  # the ranking alone: the arguments are not judged here
            query = decider._queries([text], [])[0]  # a turn's steps share its vector
            ranking = decider._rank(cset.candidates, view, policy, query)
        zero_shot = {c.id: round(p, 6) for c, p in zip(ranking.candidates, ranking.probs, strict=True)}
        label = step.answer.get("name") or NO_TOOL
        if label not in zero_shot:
            if label == NO_TOOL or view.tool(label) is None:
                continue
            zero_shot[label] = 0.0
        state = turn_state(view, policy.feedback.tool_error_regex)
        pair = Pair(
            start + i,
            query.float().numpy().astype(np.float32),
            label,
            zero_shot,
            label,  # the arguments taken as agreeing: the figures are the choice's
            "none" if label == NO_TOOL else "agree",
            None,
            frozenset(called_this_turn(view, policy.feedback.tool_error_regex)),
            state.last_tool,
            state.last_error,
            state.step,
            state.conversation,
        )
        out.append((pair, text))
    return out


def evaluate(train: list[Pair], test: list[Pair]) -> dict[str, Any]:
    started = time.perf_counter()
    fitted = fit(train, TARGET, FLOOR)
    fit_s = time.perf_counter() - started
    spec = challenger.Spec(
        1, train, fitted.weight, fitted.min_confidence, 0.0, FLOOR, fitted.head, fitted.deferral
    )
    outcomes, flags = challenger.judge(spec, test, args_rate(train))
    cert = certify(
        [o.confidence for o in outcomes],
        [o.correct for o in outcomes],
        TARGET,
        eligible=[not o.blocked for o in outcomes],
    ).to_json()
    return {
        "accuracy": round(sum(o.correct for o in outcomes) / len(outcomes), 4),
        "fitted_threshold": fitted.min_confidence,
        "head": fitted.head is not None,
        "at_fitted": utility_gate.figures(outcomes, flags),
        "certified": {k: cert[k] for k in ("threshold", "coverage", "agreement", "lower_bound")},
        "fit_s": round(fit_s, 2),
    }


def decided(
    name: str, decider: Decider, cache: Path | None, limit: tuple[int, int] | None = None
) -> tuple[list[tuple[Pair, str]], ...]:
    """(stream, test) pairs with their texts; kept in `cache` (a pickle of this run's own making)."""
    if cache is not None and cache.exists():
        return tuple(pickle.loads(cache.read_bytes()))
    stream, test, raw_policy = traffics()[name]()
    if limit is not None:  # the first steps of each: whole tasks in random order, families mixed
        stream, test = stream[: limit[0]], test[: limit[1]]
    policy = Policy.model_validate(raw_policy)
    rows = pairs_of(decider, stream, policy, 1), pairs_of(decider, test, policy, len(stream) + 1)
    if cache is not None:
        cache.write_bytes(pickle.dumps(rows))
    return rows


def run_traffic(
    name: str,
    decider: Decider,
    model: Any,
    tokenizer: Any,
    seeds: int,
    cache: Path | None,
    limit: tuple[int, int] | None,
    epochs: int = finetune.EPOCHS,
    most: int = finetune.MAX_PAIRS,
) -> dict[str, Any]:
    started = time.perf_counter()
    train_rows, test_rows = decided(name, decider, cache, limit)
    decide_s = time.perf_counter() - started
    train = [p for p, _ in train_rows]
    held = [p for p, _ in test_rows]
    out: dict[str, Any] = {
        "stream_pairs": len(train),
        "test_pairs": len(held),
        "decide_s": round(decide_s, 1),
        "frozen": evaluate(train, held),
    }
    print(name, "frozen", json.dumps(out["frozen"]), flush=True)
    labelled = finetune.first_labels(
        [t for _, t in train_rows], [p.label for p in train], [p.step for p in train]
    )
    vectors_by_text = {t: p.vector for p, t in train_rows}
    out["texts_labelled"] = len(labelled)
    out["labels"] = len(set(labelled.values()))
    tuned_runs = []
    for seed in range(seeds):
        torch.set_num_threads(1)
        tuned = finetune.tune(model, tokenizer, labelled, seed=seed, epochs=epochs, most=most)
        torch.set_num_threads(2)
        if tuned is None:
            break
        encoder = Encoder(tuned.apply(model), tokenizer)
        vectors = encoder._encode([t for _, t in train_rows + test_rows]).numpy()
        moved = [replace(p, vector=v) for (p, _), v in zip(train_rows + test_rows, vectors, strict=True)]
        result = evaluate(moved[: len(train)], moved[len(train) :])
        result["tune_pairs"] = tuned.pairs
        result["tune_s"] = round(tuned.seconds, 1)
        result["tune_cpu_s"] = round(tuned.cpu_seconds, 1)
        result["cpu_s_per_1000_pairs"] = round(1000 * tuned.cpu_seconds / max(tuned.pairs, 1), 1)
        print(name, "tuned", seed, json.dumps(result), flush=True)
        tuned_runs.append(result)
    out["tuned"] = tuned_runs
    started = time.perf_counter()
    matrix = adapter([vectors_by_text[t] for t in labelled], list(labelled.values()))
    adapted = [replace(p, vector=_unit(matrix @ p.vector)) for p, _ in train_rows + test_rows]
    out["adapter"] = {
        **evaluate(adapted[: len(train)], adapted[len(train) :]),
        "train_s": round(time.perf_counter() - started, 1),
    }
    print(name, "adapter", json.dumps(out["adapter"]), flush=True)
    return out


def adapter(vectors: list[np.ndarray[Any, Any]], labels: list[str], seed: int = 0) -> np.ndarray[Any, Any]:
    """A linear map of the frozen vectors fitted to the same contrastive pairs (no text needed):
    what an adapter on the stored vectors alone can do."""
    import random

    rng = random.Random(seed)
    texts = [str(i) for i in range(len(vectors))]
    pairs = finetune.contrastive_pairs(dict(zip(texts, labels, strict=True)), rng)
    X = torch.tensor(np.stack(vectors))
    A = torch.eye(X.shape[1], requires_grad=True)
    optimiser = torch.optim.Adam([A], lr=1e-3)
    for _ in range(finetune.EPOCHS * 5):
        for k in range(0, len(pairs), 64):
            batch = pairs[k : k + 64]
            u = X[[int(a) for a, _, _ in batch]] @ A.T
            v = X[[int(b) for _, b, _ in batch]] @ A.T
            y = torch.tensor([t for _, _, t in batch])
            loss: Any = torch.nn.functional.mse_loss(torch.nn.functional.cosine_similarity(u, v), y)
            loss = loss + 1e-3 * ((A - torch.eye(X.shape[1])) ** 2).sum()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    return A.detach().numpy()


def _unit(v: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    return (v / max(float(np.linalg.norm(v)), 1e-9)).astype(np.float32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--traffic", nargs="+", default=["helpdesk", "shop"])
    parser.add_argument("--seeds", type=int, default=2, help="fine-tunes per traffic (seeds)")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--stream", type=int, help="the first N stream steps only (with --test)")
    parser.add_argument("--test", type=int, default=200, help="the first N test steps, with --stream")
    parser.add_argument("--epochs", type=int, default=finetune.EPOCHS)
    parser.add_argument("--pairs", type=int, default=finetune.MAX_PAIRS, help="contrastive pairs per epoch")
    parser.add_argument("--cache", type=Path, help="a directory keeping the decided pairs between runs")
    args = parser.parse_args()
    from shadowswitch.engines.local.runtime.models import load_models
    from shadowswitch.engines.local.runtime.process import configure_torch

    configure_torch()
    models = load_models()
    decider = Decider(models)
    result: dict[str, Any] = {
        "target": TARGET,
        "layers_tuned": finetune.LAYERS,
        "epochs": args.epochs,
        "contrastive_pairs_per_epoch": args.pairs,
        "pairs_per_text": finetune.PER_TEXT,
        "torch_threads_tuning": 1,
        "steps": {"stream": args.stream, "test": args.test} if args.stream else "all",
        "traffics": {},
    }
    for name in args.traffic:
        result["traffics"][name] = run_traffic(
            name,
            decider,
            models.encoder,
            models.encoder_tokenizer,
            args.seeds,
            args.cache and args.cache / f"{name}.pkl",
            (args.stream, args.test) if args.stream else None,
            args.epochs,
            args.pairs,
        )
    args.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
