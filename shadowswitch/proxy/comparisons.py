"""The other path, run in the background beside a served answer: the local engine in shadow
mode, the upstream on a compared local answer. Its answer goes on the decision's `shadow`, the pair
is counted, a disagreement reaches the breaker, and a valid generative answer reaches learning.
When these runs are scheduled, and how many at once, is the pipeline's (`Pipeline._compare`)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Protocol

from shadowswitch.answers import wire
from shadowswitch.answers.fill import allowed_actions
from shadowswitch.answers.messages import choice_json, local_message, same_call, same_tool
from shadowswitch.answers.validate import check_answer
from shadowswitch.engines.base import Choice
from shadowswitch.errors import ShadowswitchError
from shadowswitch.policy.models import Policy
from shadowswitch.proxy.exchange import Context
from shadowswitch.proxy.replies import ms_since

if TYPE_CHECKING:
    from shadowswitch.engines.base import GenerativeEngine, LocalEngine
    from shadowswitch.learning.recorder import Learning
    from shadowswitch.request import ChatView
    from shadowswitch.server.metrics import Metrics
    from shadowswitch.store.recorder import DecisionRecorder


class Flow(Protocol):
    """What a comparison uses of the request path (`pipeline.Pipeline`): its engines, recorder and
    learning as swapped at run time, and the steps it shares with the served answer."""

    @property
    def recorder(self) -> DecisionRecorder: ...
    @property
    def generative(self) -> GenerativeEngine: ...
    @property
    def local(self) -> LocalEngine: ...
    @property
    def learning(self) -> Learning | None: ...
    @property
    def metrics(self) -> Metrics | None: ...

    async def decide(self, request: ChatView, policy: Policy) -> Choice:
        """The local engine's choice, with the task type's learned state when one is served."""
        ...

    def learn(self, ctx: Context, choice: Choice, generative: dict[str, Any]) -> None:
        """A valid generative answer beside the local view of the same request: an exemplar."""
        ...

    async def outcome(self, policy: Policy, decision_id: str, event: str) -> None:
        """A local outcome for the breaker."""
        ...

    def spawn(self, work: Any) -> None:
        """Run `work` in the background (drained at shutdown)."""
        ...


class Comparisons:
    def __init__(self, flow: Flow) -> None:
        self.flow = flow

    async def local(self, ctx: Context, policy: Policy, served: dict[str, Any]) -> None:
        started = time.perf_counter()
        try:
            choice = await self.flow.decide(ctx.request, policy)
        except Exception as exc:
            self.flow.recorder.update(ctx.decision.id, shadow={"path": "local", "error": str(exc)})
            return
        self.flow.learn(ctx, choice, served)
        shadow = {**choice_json(choice), "latency_ms": ms_since(started)}
        agreement = None
        if not choice.abstain_reason:
            message = local_message(choice, ctx.request.legacy_functions)
            shadow["valid"] = check_answer(ctx.request, message, allowed_actions(policy)).valid
            agreement = self.pair(ctx, message, served)
        fields = {"shadow": shadow, "agreement": agreement, "state_version": choice.trace.memory_version}
        self.flow.recorder.update(ctx.decision.id, **fields)
        await self._watch(policy, choice, agreement)
        if agreement is False and policy.breaker.count_disagreement:
            await self.flow.outcome(policy, ctx.decision.id, "disagree")

    async def generative(self, ctx: Context, choice: Choice) -> None:
        started = time.perf_counter()
        try:
            body = await self.flow.generative.complete(ctx.request.raw, ctx.upstream)
        except ShadowswitchError as exc:
            self.flow.recorder.update(ctx.decision.id, shadow={"path": "generative", "error": exc.message})
            return
        message = wire.message_of(body)
        agreement = self.pair(ctx, local_message(choice, ctx.request.legacy_functions), message)
        validity = check_answer(ctx.request, message, allowed_actions(ctx.policy))
        if validity.valid and self.flow.learning and ctx.policy is not None:
            observe = self.flow.learning.observe(
                ctx.policy, ctx.decision.id, ctx.request, choice, message, self.flow.local
            )
            self.flow.spawn(observe)
        usage = body.get("usage") or {}
        shadow = {
            "path": "generative",
            "message": message,
            "valid": validity.valid,
            "latency_ms": ms_since(started),
            "prompt_tokens": usage.get("prompt_tokens"),
            "completion_tokens": usage.get("completion_tokens"),
        }
        self.flow.recorder.update(ctx.decision.id, shadow=shadow, agreement=agreement)
        if ctx.policy is not None:
            await self._watch(ctx.policy, choice, agreement)
        if agreement is False and ctx.policy and ctx.policy.breaker.count_disagreement:
            await self.flow.outcome(ctx.policy, ctx.decision.id, "disagree")

    async def _watch(self, policy: Policy, choice: Choice, agreement: bool | None) -> None:
        """A compared answer inside the certified region: the monitor of its state reads it."""
        if agreement is not None and self.flow.learning:
            await self.flow.learning.compared(policy, choice, agreement)

    def pair(self, ctx: Context, local: dict[str, Any], generative: dict[str, Any]) -> bool:
        """Both paths' answers to one request: count the pair; agreement is on the whole call."""
        call = same_call(local, generative)
        if self.flow.metrics:
            self.flow.metrics.observe_pair(ctx.task_type, same_tool(local, generative), call)
        return call
