"""The pipeline's door to learning: the memory to decide with, and pairs to keep as exemplars."""

from __future__ import annotations

import logging
from typing import Any

import anyio
from sqlalchemy.exc import SQLAlchemyError

from shadowswitch.answers.messages import call_of
from shadowswitch.engines.base import Choice
from shadowswitch.engines.local.conversation import called_this_turn, turn_state
from shadowswitch.learning.exemplar import build_exemplar
from shadowswitch.learning.memory import Memory
from shadowswitch.learning.served import ServedMemories
from shadowswitch.policy.models import Policy
from shadowswitch.request import ChatView
from shadowswitch.store.exemplars import ExemplarStore

log = logging.getLogger(__name__)


class Learning:
    def __init__(self, store: ExemplarStore, memories: ServedMemories):
        self.store = store
        self.memories = memories

    def memory(self, policy: Policy) -> Memory | None:
        return self.memories.get(policy.task_type)

    async def observe(
        self,
        policy: Policy,
        decision_id: str,
        request: ChatView,
        choice: Choice,
        generative: dict[str, Any],
        engine: Any = None,
    ) -> None:
        """Keep a valid generative answer and the local view of the same request (background).
        When the engine chose another tool than the upstream, or abstained before filling any, it
        is asked for the arguments it would give the upstream's tool (`engine.fill_tool`), so that
        the pair says whether the whole call would agree."""
        if not policy.engine.learn or policy.engine.candidates != "tools":
            return
        label = call_of(generative).name
        other = None
        unfilled = choice.kind == "tool" and choice.arguments is None
        if label and (label != choice.name or unfilled) and hasattr(engine, "fill_tool"):
            other = await engine.fill_tool(request, policy, label, self.memory(policy))
        blocked = sorted(called_this_turn(request, policy.feedback.tool_error_regex))
        state = turn_state(request, policy.feedback.tool_error_regex)
        region = engine.region_table(policy.engine.source) if hasattr(engine, "region_table") else None
        # Off the event loop: the place table may be the shared engine process's, over its socket.
        args = (policy.task_type, decision_id, request, choice, generative, other, blocked, state, region)
        row = await anyio.to_thread.run_sync(build_exemplar, *args)
        if row is None:
            return
        try:
            await anyio.to_thread.run_sync(self.store.add, row)
        except SQLAlchemyError:
            log.exception("learning: could not store the exemplar of decision %s", decision_id)

    async def exclude(self, task_type: str, decision_id: str) -> None:
        """Negative feedback: the decision's exemplar no longer teaches."""
        if await anyio.to_thread.run_sync(self.store.exclude, decision_id):
            self.memories.invalidate(task_type)
