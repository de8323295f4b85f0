"""The object the proxy holds: `decide` awaits the engine on its worker thread."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from shadowswitch.engines.base import Choice
from shadowswitch.engines.local.calibration import Calibration
from shadowswitch.engines.local.decider import Decider, Job
from shadowswitch.engines.local.knowledge import Knowledge
from shadowswitch.engines.local.runtime.models import LoadedModels
from shadowswitch.engines.local.runtime.worker import Worker
from shadowswitch.engines.local.schema import unsupported
from shadowswitch.errors import UnsupportedRequest
from shadowswitch.policy.models import Policy
from shadowswitch.request import ChatView

if TYPE_CHECKING:
    from shadowswitch.learning.memory import Memory


class ChoiceEngine:
    """Implements `shadowswitch.engines.base.LocalEngine` over already-loaded models."""

    def __init__(
        self,
        models: LoadedModels,
        calibration: Calibration | None = None,
        knowledge: Knowledge | None = None,
        max_batch: int = 8,
    ) -> None:
        self.engine = Decider(models, calibration, knowledge)
        self.worker: Worker[Job, Choice] = Worker(self._run, max_batch)

    async def decide(self, request: ChatView, policy: Policy, memory: Memory | None = None) -> Choice:
        for tool in request.tools:  # a schema it cannot read: abstain, rather than fail on it
            reason = unsupported(tool.parameters)
            if reason:
                raise UnsupportedRequest(f"tool {tool.name!r}: {reason}")
        return await self.worker.submit(Job(request, policy, memory))

    async def fill_tool(
        self, request: ChatView, policy: Policy, tool: str, memory: Memory | None = None
    ) -> Choice:
        """The arguments the engine gives `tool`, without ranking (learning's pairs)."""
        return await self.worker.submit(Job(request, policy, memory, tool))

    def decide_sync(self, request: ChatView, policy: Policy, memory: Memory | None = None) -> Choice:
        """For scripts and benchmarks: the same decision on the caller's thread."""
        return self._run([Job(request, policy, memory)])[0]

    def _run(self, jobs: Sequence[Job]) -> list[Choice]:
        return self.engine.decide_batch(jobs)

    @property
    def ready(self) -> bool:
        return True

    def close(self) -> None:
        self.worker.close()
