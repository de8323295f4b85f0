"""Fit the bridge (shadowswitch/engines/local/runtime/bridge.py): e5's vector of a text → the
English encoder's vector of the same text, on English development texts only.

    python -m bench.bridge [--output PATH]     # priors/bridge-multilingual.npy and the shift
    python -m bench.bridge --shift-only        # priors/bridge-language-shift.json alone

Texts: the last user turn of every case of BFCL's development files (live_*, parallel*, exec_*;
never the test files), less the cases of the Chinese development set (bench/zh/dev.jsonl:
what `bench zh` measures is not fitted on, not even in English), and the reference tools'
descriptions. Requests are read as e5 queries; the tool descriptions as e5 passages too, so the
map sees tool-like text read both ways. No Chinese text is used for the map: it relies on e5 placing a
translation near its original.

The language shift (bridge.LanguageShift): the mean e5 query vector of the same English requests
minus that of hand-written Chinese requests (bench/bridge_data/zh.txt: everyday assistant
requests and chat, written for this and none from a measured set). Its gain: the mean cosine of
bridged English requests to their English vectors over that of the same requests in Chinese
(bench/bridge_data/zh-en.tsv: the first 60 lines of zh.txt with an English version written by
hand), after the map and the shift.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import torch

from bench.bfcl.data import DEV_CATEGORIES, load_cases
from shadowswitch.engines.local.calibration import PACKAGED
from shadowswitch.engines.local.choice.reference import read_texts
from shadowswitch.engines.local.conversation import query_text
from shadowswitch.engines.local.runtime.bridge import (
    PACKAGED_BRIDGE,
    PACKAGED_SHIFT,
    LanguageShift,
    apply_bridge,
    fit_bridge,
    load_bridge,
)
from shadowswitch.engines.local.runtime.encoder import Encoder
from shadowswitch.engines.local.runtime.models import load_models
from shadowswitch.engines.local.runtime.multilingual import MultilingualEncoder, load_multilingual
from shadowswitch.engines.local.runtime.process import configure_torch
from shadowswitch.request import ChatView

ZH_DEV = Path(__file__).parent / "zh" / "dev.jsonl"
LANGUAGES = Path(__file__).parent / "bridge_data"  # <language>.txt: one request a line
MAX_CHARS = 1000  # longer turns are documents pasted in, not requests
L2 = 0.1


def requests() -> list[str]:
    """The development files' last user turns, each once, without the Chinese set's cases."""
    held = {json.loads(line)["id"] for line in ZH_DEV.read_text(encoding="utf-8").splitlines() if line}
    texts = []
    for category in DEV_CATEGORIES:
        for case in load_cases(category):
            text = query_text(ChatView.parse(case.request)).strip()
            if case.id not in held and text and len(text) < MAX_CHARS:
                texts.append(text)
    return list(dict.fromkeys(texts))


def shift(e5: MultilingualEncoder, english: torch.Tensor) -> LanguageShift:
    """Per language with requests in `LANGUAGES`: the mean English query vector minus its own."""
    shifts = {}
    for path in sorted(LANGUAGES.glob("*.txt")):
        lines = [t.strip() for t in path.read_text(encoding="utf-8").splitlines() if t.strip()]
        shifts[path.stem] = english.mean(0) - e5.embed(lines).mean(0)
    return LanguageShift(shifts)


def gains(
    e5: MultilingualEncoder, english: Encoder, matrix: torch.Tensor, shifted: LanguageShift
) -> dict[str, float]:
    """Per language with hand-written pairs (`<language>-en.tsv`: the request, a tab, the same in
    English): how much closer a bridged English request lands to its English vector than the
    bridged request in that language (mean cosines), LanguageShift's gain."""
    out = {}
    for path in sorted(LANGUAGES.glob("*-en.tsv")):
        pairs = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        foreign, own = [p[0] for p in pairs], [p[1] for p in pairs]
        target = english.embed(own)
        from_english, from_foreign = (
            float((apply_bridge(matrix, shifted.apply(t, e5.embed(t))) * target).sum(1).mean())
            for t in (own, foreign)
        )
        lang = path.stem.split("-")[0]
        out[lang] = from_english / from_foreign
        print(
            f"{lang}: {len(pairs)} pairs, cosine to the English vector bridged from English "
            f"{from_english:.3f}, from {lang} {from_foreign:.3f}: gain {out[lang]:.3f}"
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=PACKAGED_BRIDGE)
    parser.add_argument("--shift-output", type=Path, default=PACKAGED_SHIFT)
    parser.add_argument("--shift-only", action="store_true", help="keep the map, fit the shift and gain")
    args = parser.parse_args()
    configure_torch()
    e5 = MultilingualEncoder(load_multilingual())
    asked = requests()
    queries = e5.embed(asked)
    shifted = shift(e5, queries)
    models = load_models("embedded")
    english = Encoder(models.encoder, models.encoder_tokenizer)
    matrix = load_bridge(args.output) if args.shift_only else None
    if matrix is None:
        tools = read_texts(PACKAGED.parent / "reference_tools.json")
        print(f"{len(asked)} requests, {len(tools)} tool descriptions")
        source = torch.cat([queries, e5.embed_cached(tools)])
        target = torch.cat([english.embed(asked), english.embed(tools)])
        matrix = fit_bridge(source, target, L2)
        fit = (apply_bridge(matrix, source) * target).sum(1)
        print(f"cosine of bridged and English vectors on the fitting texts: mean {fit.mean():.3f}")
        np.save(args.output, matrix.numpy().astype(np.float16))
        print(f"wrote {args.output}")
    matrix = matrix.half().float()  # as the engine reads it back
    shifted.gains = gains(e5, english, matrix, shifted)
    shifted.write(args.shift_output, f"{len(asked)} English dev requests; {LANGUAGES.name}/")
    print(f"wrote {args.shift_output}")


if __name__ == "__main__":
    main()
