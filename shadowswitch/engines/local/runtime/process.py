"""Process-wide settings of torch, made once at start-up: they hold for every engine in the process."""

from __future__ import annotations

import gc
import os

MAX_THREADS = 8  # intra-op threads beyond this gain nothing on the engine's small passes
THREADS_ENV = "SHADOWSWITCH_TORCH_THREADS"


def share_cores() -> None:
    """Let OpenMP threads that wait for work sleep rather than spin (`OMP_WAIT_POLICY=PASSIVE`),
    unless the environment says otherwise. Call it before torch is imported: the OpenMP runtime
    reads the variable once, when it loads.

    A server's engine never has the cores to itself: the event loop parses, records and answers
    on them between its passes, and the agents' clients often run beside it. Spinning waiters
    then hold a core that one of torch's own threads needs, and every pass waits for a thread
    that is not running: on 2 shared cores, 6-7x slower decisions (bench/scaling, the simple
    traffic), where sleeping waiters cost nothing measurable on an idle machine."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def configure_torch(threads: int | None = None) -> int:
    """Set torch's intra-op threads and return them: `threads`, else `SHADOWSWITCH_TORCH_THREADS`,
    else the cores (at most `MAX_THREADS`).

    A process-wide setting: the proxy calls this once before it loads its engines, rather than
    each engine setting it again for all the others. The engine's work runs on one worker thread
    per engine, so using the cores leaves nothing to oversubscribe but the process's own other
    threads (`share_cores`)."""
    import torch

    count = threads or int(os.environ.get(THREADS_ENV) or 0) or max(1, min(os.cpu_count() or 1, MAX_THREADS))
    torch.set_num_threads(count)
    return count


def freeze_heap() -> None:
    """Keep the loaded models' objects out of the garbage collector's full passes (`gc.freeze`).

    torch, transformers and LiteLLM leave about 880,000 objects that live as long as the process;
    a full collection walked them all, 0.47 s idle and over a second on a busy machine: a pause
    for every request in flight, set off by any burst of allocations (a learning round's). Called
    once the models are in; instant (no collection first, which would itself be that pause)."""
    gc.freeze()
