"""The local path: one engine per model a policy names, or none at all (`NullEngine`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from shadowswitch.engines.base import Choice, LocalEngine, ModelEngine
from shadowswitch.errors import EngineError
from shadowswitch.policy.models import Policy
from shadowswitch.request import ChatView

Build = Callable[[str], ModelEngine]

if TYPE_CHECKING:
    from shadowswitch.learning.memory import Memory


class EngineSet:
    """A LocalEngine that dispatches on `policy.engine.model` (embedded, an HF dir, a .gguf).

    With `build`, models that a reloaded policy names can be added while the others serve.
    With `default`, one engine answers for every model (an engine built by a caller or a test).
    """

    def __init__(
        self, engines: dict[str, ModelEngine], build: Build | None = None, default: ModelEngine | None = None
    ):
        self.engines = engines
        self.build = build
        self.default = default

    @classmethod
    def load(cls, specs: Iterable[str], build: Build) -> EngineSet:
        return cls({spec: build(spec) for spec in sorted(set(specs))}, build)

    @property
    def ready(self) -> bool:
        engines = [*self.engines.values(), *([self.default] if self.default else [])]
        return all(engine.ready for engine in engines)

    def serves(self, model: str) -> bool:
        """Is the engine for this model loaded (a model a reload just named may still be loading)?"""
        engine = self._engine(model)
        return engine is not None and engine.ready

    def missing(self, specs: Iterable[str]) -> list[str]:
        return sorted(set(specs) - self.engines.keys())

    def add(self, spec: str, engine: ModelEngine) -> None:
        # a new dict, not a mutation: a worker thread may be iterating the old one
        self.engines = {**self.engines, spec: engine}

    async def decide(self, request: ChatView, policy: Policy, memory: Memory | None = None) -> Choice:
        engine = self._engine(policy.engine.model)
        if engine is None:
            raise EngineError(f"no local engine loaded for model {policy.engine.model!r}")
        if memory is None:
            return await engine.decide(request, policy)
        return await engine.decide(request, policy, memory)

    async def fill_tool(
        self, request: ChatView, policy: Policy, tool: str, memory: Memory | None = None
    ) -> Choice | None:
        """The arguments the policy's engine gives `tool`; None if it cannot say."""
        # a scripted stand-in may only decide: it cannot fill
        fill = getattr(self._engine(policy.engine.model), "fill_tool", None)
        result: Choice | None = await fill(request, policy, tool, memory) if fill else None
        return result

    def region_table(self, model: str) -> Callable[[str], str | None] | None:
        """The place table the policy's engine reads values with (learning's `region` rewrite)."""
        region: Callable[[str], str | None] | None = getattr(self._engine(model), "region_of", None)
        return region

    def _engine(self, model: str) -> ModelEngine | None:
        return self.engines.get(model, self.default)


class NullEngine:
    """No local engine (generative only, or models still loading): serves nothing, fills nothing."""

    ready = False

    def serves(self, model: str) -> bool:
        return False

    async def decide(self, request: ChatView, policy: Policy, memory: Memory | None = None) -> Choice:
        raise EngineError("no local engine is loaded")

    async def fill_tool(
        self, request: ChatView, policy: Policy, tool: str, memory: Memory | None = None
    ) -> Choice | None:
        return None


def local_engine(engine: LocalEngine | ModelEngine | None) -> LocalEngine:
    """The local path from what a caller has: nothing, one engine for every model, or a set."""
    if engine is None:
        return NullEngine()
    if isinstance(engine, EngineSet | NullEngine):
        return engine
    return EngineSet({}, default=engine)
