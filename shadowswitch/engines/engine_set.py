"""One local engine per model a policy names; requests go to the engine of their policy."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from shadowswitch.engines.base import Choice, LocalEngine
from shadowswitch.errors import EngineError
from shadowswitch.policy.models import Policy
from shadowswitch.request import ChatView

if TYPE_CHECKING:
    from shadowswitch.learning.memory import Memory


class EngineSet:
    """A LocalEngine that dispatches on `policy.engine.model` (embedded, an HF dir, a .gguf)."""

    def __init__(self, engines: dict[str, LocalEngine]):
        self.engines = engines

    @classmethod
    def load(cls, specs: Iterable[str], build: Callable[[str], LocalEngine]) -> EngineSet:
        return cls({spec: build(spec) for spec in sorted(set(specs))})

    @property
    def ready(self) -> bool:
        return all(engine.ready for engine in self.engines.values())

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
