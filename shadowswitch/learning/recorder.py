"""The pipeline's door to learning: the memory to decide with, and pairs to keep as exemplars."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import anyio
from sqlalchemy.exc import SQLAlchemyError

from shadowswitch.answers.messages import call_of
from shadowswitch.engines.base import Choice
from shadowswitch.engines.local.conversation import called_this_turn, turn_state
from shadowswitch.learning import regions
from shadowswitch.learning.certificate import Monitor
from shadowswitch.learning.exemplar import build_exemplar
from shadowswitch.learning.memory import Memory
from shadowswitch.learning.served import ServedMemories
from shadowswitch.policy.models import Policy
from shadowswitch.redact import Redactor, default_redactor
from shadowswitch.request import ChatView
from shadowswitch.store.exemplars import ExemplarStore

log = logging.getLogger(__name__)


class Learning:
    def __init__(
        self,
        store: ExemplarStore,
        memories: ServedMemories,
        on_withdraw: Callable[[str], None] | None = None,
        redact: Redactor = default_redactor,
    ):
        self.store = store
        self.redact = redact  # what the texts a pair keeps for tuning the encoder go through
        self.memories = memories
        self.on_withdraw = on_withdraw  # a task type's certificate was withdrawn here (metrics)
        self.monitors: dict[str, tuple[int | None, Monitor]] = {}  # per task type: certificate → monitor

    def memory(self, policy: Policy) -> Memory | None:
        return self.memories.get(policy.task_type)

    def uncertified(self, policy: Policy, choice: Choice) -> str | None:
        """Why `choice` lies outside the served state's certified region (None: inside, or the
        policy does not certify): the abstention reason `uncertified`."""
        if not policy.engine.certify:
            return None
        version = choice.trace.memory_version
        threshold = self.memories.certified(policy.task_type, version)
        if threshold is None:
            return f"uncertified: no certified region for version {version} yet"
        if choice.confidence < threshold:
            return f"uncertified: confidence {choice.confidence:.2f} below the certified {threshold}"
        return None

    async def compared(self, policy: Policy, choice: Choice, agreement: bool) -> None:
        """A compared answer of the served state inside its region feeds the monitor; once its
        agreement is shown below the target, the certificate is withdrawn."""
        if choice.abstain_reason or not policy.engine.certify or self.uncertified(policy, choice):
            return
        row = self.memories.certificates.get(policy.task_type)
        if row is None:
            return
        held = self.monitors.get(policy.task_type)
        if held is None or held[0] != row.id:  # a new certificate: a new monitor
            held = (row.id, Monitor(policy.engine.target_agreement))
            self.monitors[policy.task_type] = held
        monitor = held[1]
        if monitor.failed or not monitor.add(float(agreement)):
            return
        withdrawal, event = regions.withdrawal(row, monitor)
        try:
            done = await anyio.to_thread.run_sync(self.store.certificates.withdraw, withdrawal, event)
        except SQLAlchemyError:
            log.exception("learning: could not withdraw the certificate of %s", row.task_type)
            return
        self.memories.withdrawn(done)
        log.warning("learning %s: certificate withdrawn: %s", row.task_type, event.reason)
        if self.on_withdraw:
            self.on_withdraw(row.task_type)

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
        the pair says whether the whole call would agree; that fill's own verdict (a value
        missing) goes with it."""
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
        texts = self.redact if policy.engine.tune_encoder else None  # the words to tune the encoder on
        args = (policy.task_type, decision_id, request, choice, generative, other, blocked, state, region)
        row = await anyio.to_thread.run_sync(build_exemplar, *args, texts)
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
