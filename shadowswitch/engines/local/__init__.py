"""The local constrained-choice engine: a small model chooses among candidates, never writes prose.

Importing this package is cheap; torch and transformers load with the models. At start-up, once:

    configure_torch()                          # process-wide torch settings
    prior = load_calibration(path)             # the fitted weights (calibration.py)
    knowledge = Knowledge.load()               # the optional tables (places, currencies)
    models = load_models("embedded")           # seconds after the first run
    freeze_heap()                              # their objects out of the full GC passes
    engine = ChoiceEngine(models, prior, knowledge)   # or create_engine(...), engine_builder(...)
    choice = await engine.decide(request, policy)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from shadowswitch.engines.local.calibration import Calibration, load_calibration
from shadowswitch.engines.local.knowledge import Knowledge
from shadowswitch.engines.local.runtime.models import LoadedModels, default_cache_dir, load_models
from shadowswitch.engines.local.runtime.process import configure_torch, freeze_heap
from shadowswitch.policy.models import ModelSource

if TYPE_CHECKING:
    from shadowswitch.engines.local.engine import ChoiceEngine

__all__ = [
    "Calibration",
    "ChoiceEngine",
    "Knowledge",
    "LoadedModels",
    "configure_torch",
    "create_engine",
    "default_cache_dir",
    "engine_builder",
    "freeze_heap",
    "load_calibration",
    "load_models",
]


def create_engine(
    spec: str | ModelSource = "embedded",
    cache_dir: Path | None = None,
    calibration: Calibration | None = None,
    knowledge: Knowledge | None = None,
) -> ChoiceEngine:
    """Load the models named by `spec` (a model, or a policy's `engine.source`) and wrap them
    in a ready engine (blocking; seconds).

    `calibration` and `knowledge` default to the packaged prior and the general tables; a
    proxy loads them once and passes the same to each engine."""
    from shadowswitch.engines.local.engine import ChoiceEngine

    return ChoiceEngine(load_models(spec, cache_dir), calibration, knowledge)


def engine_builder(
    calibration: Path, knowledge: tuple[str, ...], cache_dir: Path | None
) -> Callable[[ModelSource], ChoiceEngine]:
    """Set torch up for this process, load the prior and the tables once, and return what builds
    the engine of one model source with them (the proxy's engine set, or the engine process's)."""
    configure_torch(spare=1)  # process-wide, once for every engine; a core left to the event loop
    prior = load_calibration(calibration)
    tables = Knowledge.load(knowledge)
    return lambda spec: create_engine(spec, cache_dir, prior, tables)


def __getattr__(name: str) -> object:
    # Lazy: the engine imports torch, which the proxy's CLI must not pay for.
    if name == "ChoiceEngine":
        from shadowswitch.engines.local.engine import ChoiceEngine

        return ChoiceEngine
    raise AttributeError(name)
