"""The local path: one engine per model source the policies name, or none at all (`NullEngine`)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from shadowswitch.engines.base import Choice, LocalEngine, ModelEngine
from shadowswitch.errors import EngineError
from shadowswitch.policy.models import ModelSource, Policy
from shadowswitch.request import ChatView

Build = Callable[[ModelSource], ModelEngine]
log = logging.getLogger(__name__)
RETRY_LOAD_S = 60.0  # a model that failed to load is tried again at most this often

if TYPE_CHECKING:
    from shadowswitch.engines.local.learned_state import LearnedState


class EngineSet:
    """A LocalEngine that dispatches on `policy.engine.source`: the model (embedded, an HF dir, a
    .gguf) and, for `backend: remote`, the servers it runs on.

    With `build`, a source the set has not loaded (a reloaded policy's, or one whose server was
    away at start) loads in the background when a request names it, while the others serve; one
    that failed is tried again at most every RETRY_LOAD_S. With `default`, one engine answers for
    every model (an engine built by a caller or a test).
    """

    def __init__(
        self,
        engines: dict[ModelSource, ModelEngine],
        build: Build | None = None,
        default: ModelEngine | None = None,
    ):
        self.engines = engines
        self.build = build
        self.default = default
        self._loading: set[ModelSource] = set()
        self._lock = threading.Lock()
        self._failed: dict[ModelSource, float] = {}  # source → when its load last failed (monotonic)

    @classmethod
    def load(cls, sources: Iterable[ModelSource], build: Build) -> EngineSet:
        """An engine for each source; one that cannot load leaves the others serving, and its task
        types answer generatively until a reload, or a request a minute later, loads it."""
        engines = cls({}, build)
        for source in sorted(set(sources)):
            engines.build_now(source)
        return engines

    def build_now(self, source: ModelSource) -> bool:
        """Load `source` here (blocking; seconds) unless it is loaded or loading; False if not
        loaded by this call."""
        return self._claim(source) and self._build(source)

    def load_later(self, source: ModelSource) -> None:
        """Load `source` on a thread of its own; not again within RETRY_LOAD_S of a failure, so a
        bad path or an absent server is not tried on every request."""
        failed = self._failed.get(source)
        if failed is not None and time.monotonic() - failed < RETRY_LOAD_S:
            return
        if self._claim(source):
            threading.Thread(target=self._build, args=(source,), name=f"load {source}", daemon=True).start()

    def _claim(self, source: ModelSource) -> bool:
        with self._lock:  # requests on the event loop and a reload's thread may ask at once
            if self.build is None or source in self._loading or source in self.engines:
                return False
            self._loading.add(source)
            return True

    def _build(self, source: ModelSource) -> bool:
        assert self.build is not None
        try:
            self.add(source, self.build(source))
        except Exception:  # its task types answer generatively meanwhile
            self._failed[source] = time.monotonic()
            log.exception("could not load local model %s; its task types answer generatively", source)
            return False
        finally:
            self._loading.discard(source)
        self._failed.pop(source, None)
        log.info("local model %s loaded", source)
        return True

    def failed(self, source: ModelSource) -> bool:
        """Did the last load of `source` fail?"""
        return source in self._failed

    @property
    def ready(self) -> bool:
        engines = [*self.engines.values(), *([self.default] if self.default else [])]
        return all(engine.ready for engine in engines)

    def serves(self, source: ModelSource) -> bool:
        """Is the engine for this source loaded (one a reload just named may still be loading)?"""
        engine = self._engine(source)
        if engine is None:
            self.load_later(source)
        return engine is not None and engine.ready

    def missing(self, sources: Iterable[ModelSource]) -> list[ModelSource]:
        return sorted(set(sources) - self.engines.keys())

    def add(self, source: ModelSource, engine: ModelEngine) -> None:
        # a new dict, not a mutation: a worker thread may be iterating the old one
        self.engines = {**self.engines, source: engine}

    async def decide(self, request: ChatView, policy: Policy, memory: LearnedState | None = None) -> Choice:
        engine = self._engine(policy.engine.source)
        if engine is None:
            raise EngineError(f"no local engine loaded for model {policy.engine.source}")
        if memory is None:
            return await engine.decide(request, policy)
        return await engine.decide(request, policy, memory)

    async def fill_tool(
        self, request: ChatView, policy: Policy, tool: str, memory: LearnedState | None = None
    ) -> Choice | None:
        """The arguments the policy's engine gives `tool`; None if it cannot say."""
        # a scripted stand-in may only decide: it cannot fill
        fill = getattr(self._engine(policy.engine.source), "fill_tool", None)
        result: Choice | None = await fill(request, policy, tool, memory) if fill else None
        return result

    def region_table(self, source: ModelSource) -> Callable[[str], str | None] | None:
        """The place table the policy's engine reads values with (learning's `region` rewrite)."""
        region: Callable[[str], str | None] | None = getattr(self._engine(source), "region_of", None)
        return region

    def _engine(self, source: ModelSource) -> ModelEngine | None:
        return self.engines.get(source, self.default)


class NullEngine:
    """No local engine (generative only, or models still loading): serves nothing, fills nothing."""

    ready = False

    def serves(self, source: ModelSource) -> bool:
        return False

    async def decide(self, request: ChatView, policy: Policy, memory: LearnedState | None = None) -> Choice:
        raise EngineError("no local engine is loaded")

    async def fill_tool(
        self, request: ChatView, policy: Policy, tool: str, memory: LearnedState | None = None
    ) -> Choice | None:
        return None


def local_engine(engine: LocalEngine | ModelEngine | None) -> LocalEngine:
    """The local path from what a caller has: nothing, one engine for every model, or a set."""
    if engine is None:
        return NullEngine()
    if isinstance(engine, EngineSet | NullEngine):
        return engine
    return EngineSet({}, default=engine)
