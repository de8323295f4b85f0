"""Who waits for an engine job: a user (a served request) or no one (a shadow run, a compared
answer's learning, the fill that tells learning what a pair teaches).

Background work is marked where the pipeline starts it (`background_context`, the context its
tasks run in), and the engine reads the mark when a job is queued (`in_background`): its worker
runs a user's jobs first and background ones one at a time between them, so a heavy shadow agent
cannot hold the requests a user waits for behind its own (runtime/worker.py).
"""

from __future__ import annotations

import contextvars

_BACKGROUND: contextvars.ContextVar[bool] = contextvars.ContextVar("engine_background", default=False)


def in_background() -> bool:
    """Is the caller background work (no user waits for its engine jobs)?"""
    return _BACKGROUND.get()


def background_context() -> contextvars.Context:
    """A copy of the current context in which engine jobs are background work: pass it to
    `asyncio.create_task(..., context=...)`."""
    context = contextvars.copy_context()
    context.run(_BACKGROUND.set, True)
    return context


def mark(background: bool) -> contextvars.Token[bool]:
    """Mark the current context (the engine process, for a job a worker marked); `reset` undoes it."""
    return _BACKGROUND.set(background)


def reset(token: contextvars.Token[bool]) -> None:
    _BACKGROUND.reset(token)
