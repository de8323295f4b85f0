"""One local engine per model a policy names; requests go to the engine of their policy."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from shadowswitch.engines.base import Choice, LocalEngine
from shadowswitch.errors import EngineError
from shadowswitch.policy.models import Policy
from shadowswitch.request import ChatView

Build = Callable[[str], LocalEngine]

if TYPE_CHECKING:
    from shadowswitch.learning.memory import Memory


class EngineSet:
    """A LocalEngine that dispatches on `policy.engine.model` (embedded, an HF dir, a .gguf).

    With `build`, models that a reloaded policy names can be added while the others serve.
    """

    def __init__(self, engines: dict[str, LocalEngine], build: Build | None = None):
        self.engines = engines
        self.build = build

    @classmethod
    def load(cls, specs: Iterable[str], build: Build) -> EngineSet:
        return cls({spec: build(spec) for spec in sorted(set(specs))}, build)

    @property
    def ready(self) -> bool:
        return all(engine.ready for engine in self.engines.values())

    def serves(self, model: str) -> bool:
        """Is the engine for this model loaded (a model a reload just named may still be loading)?"""
        engine = self.engines.get(model)
        return engine is not None and engine.ready

    def missing(self, specs: Iterable[str]) -> list[str]:
        return sorted(set(specs) - self.engines.keys())

    def add(self, spec: str, engine: LocalEngine) -> None:
        # a new dict, not a mutation: a worker thread may be iterating the old one
        self.engines = {**self.engines, spec: engine}

    async def decide(self, request: ChatView, policy: Policy, memory: Memory | None = None) -> Choice:
        engine = self.engines.get(policy.engine.model)
        if engine is None:
            raise EngineError(f"no local engine loaded for model {policy.engine.model!r}")
        if memory is None:
            return await engine.decide(request, policy)
        return await engine.decide(request, policy, memory)

    async def fill_tool(
        self, request: ChatView, policy: Policy, tool: str, memory: Memory | None = None
    ) -> Choice | None:
        """The arguments the policy's engine gives `tool`; None if it cannot say."""
        engine = self.engines.get(policy.engine.model)
        fill = getattr(engine, "fill_tool", None)
        return await fill(request, policy, tool, memory) if fill else None
