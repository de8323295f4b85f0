"""Process-wide settings of torch, made once at start-up: they hold for every engine in the process."""

from __future__ import annotations

import gc
import os

MAX_THREADS = 8  # intra-op threads beyond this gain nothing on the engine's small passes
THREADS_ENV = "SHADOWSWITCH_TORCH_THREADS"


def configure_torch(threads: int | None = None, spare: int = 0) -> int:
    """Set torch's intra-op threads and return them: `threads`, else `SHADOWSWITCH_TORCH_THREADS`,
    else the cores but `spare` (at least 1, at most `MAX_THREADS`).

    A process-wide setting: the proxy calls this once before it loads its engines, rather than
    each engine setting it again for all the others. The engine's work runs on one worker thread
    per engine, but a server's event loop (HTTP, parsing, recording) runs beside it on the same
    cores: a server leaves it one (`spare=1`). On 2 cores under 16 concurrent requests, one
    torch thread decided more a second than two, and single decisions no slower
    (docs/benchmarks/scaling.md)."""
    import torch

    cores = os.cpu_count() or 1
    count = threads or int(os.environ.get(THREADS_ENV) or 0) or max(1, min(cores - spare, MAX_THREADS))
    torch.set_num_threads(count)
    return count


def freeze_heap() -> None:
    """Keep the loaded models' objects out of the garbage collector's full passes (`gc.freeze`).

    torch, transformers and LiteLLM leave about 880,000 objects that live as long as the process;
    a full collection walked them all, 0.47 s idle and over a second on a busy machine: a pause
    for every request in flight, set off by any burst of allocations (a learning round's). Called
    once the models are in; instant (no collection first, which would itself be that pause)."""
    gc.freeze()
