"""The one place that knows the order of the steps.

classify → rollout route (sticky bucket) → local engine or generative (LiteLLM)
→ validate → record → breaker → response; shadow and comparison runs in the background.
What each step does lives beside it: the background runs in `comparisons`, recording the
decision and building the reply in `replies`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from shadowswitch.answers import wire
from shadowswitch.answers.fill import allowed_actions, chosen_action, upstream_request, with_action_text
from shadowswitch.answers.messages import apply_choice, apply_validity, local_message
from shadowswitch.answers.validate import check_answer
from shadowswitch.engines.base import Choice, GenerativeEngine, LocalEngine, ModelEngine
from shadowswitch.engines.engine_set import local_engine
from shadowswitch.errors import (
    EngineUnavailable,
    Forbidden,
    ServiceUnavailable,
    ShadowswitchError,
    Unauthorized,
    UnsupportedRequest,
    UpstreamError,
)
from shadowswitch.learning.recorder import Learning
from shadowswitch.policy.models import Policy, PolicySet, Upstream
from shadowswitch.proxy.bursts import bursts
from shadowswitch.proxy.classify import UNCLASSIFIED, classify
from shadowswitch.proxy.comparisons import Comparisons
from shadowswitch.proxy.exchange import Context, Incoming, OutcomeSink, Reply, reply_headers, stored_prompt
from shadowswitch.proxy.inflight import InFlight
from shadowswitch.proxy.replies import CUT_OFF, Records
from shadowswitch.redact import Redactor, default_redactor, safe_text
from shadowswitch.request import ChatView
from shadowswitch.rollouts.breaker import counts_as
from shadowswitch.rollouts.routing import choose_route, conversation_key, hash_key, should_compare
from shadowswitch.rollouts.routing import sticky_key as make_sticky_key
from shadowswitch.rollouts.store.live import LiveRollouts
from shadowswitch.states import DecisionPath, RolloutMode, Route
from shadowswitch.store.recorder import DecisionRecorder
from shadowswitch.store.tables import new_decision, new_id

if TYPE_CHECKING:
    from shadowswitch.server.metrics import Metrics

log = logging.getLogger(__name__)
BREAKER_OPENED = "rollout_changed: no longer routed locally (breaker tripped) when the answer was ready"


class Pipeline:
    def __init__(
        self,
        policies: PolicySet,
        generative: GenerativeEngine,
        recorder: DecisionRecorder,
        rollouts: LiveRollouts,
        local: LocalEngine | ModelEngine | None = None,
        outcomes: OutcomeSink | None = None,
        metrics: Metrics | None = None,
        prompt_cap: int | None = None,
        learning: Learning | None = None,
        redact: Redactor = default_redactor,
    ):
        self.policies = policies
        self.generative = generative
        self.recorder = recorder
        self.rollouts = rollouts
        self.local = local_engine(local)
        self.outcomes = outcomes
        self.metrics = metrics
        self.prompt_cap = prompt_cap  # None: prompts are not stored (the default)
        self.learning = learning  # exemplars from generative answers, learned states to decide with
        self.redact = redact  # applied to stored prompts
        self.inflight = InFlight()
        self.records = Records(recorder, metrics)
        self.comparisons = Comparisons(self)
        self._gates: dict[str, asyncio.Lock] = {}  # per task type: local outcomes one at a time

    async def handle(self, incoming: Incoming) -> Reply:
        ctx = self._context(incoming)
        self.inflight.track_request()
        if self.outcomes and ctx.request.tool_results:  # no task when there is nothing to judge
            self.spawn(self.outcomes.observe_request(ctx.request, ctx.policy))
        try:
            if ctx.route == Route.LOCAL and ctx.policy is not None:
                reply = await self._try_local(ctx, ctx.policy)
                if reply is not None:
                    return reply
            return await self._generative(ctx, stream=ctx.request.stream)
        except asyncio.CancelledError:
            if ctx.recorded:
                raise
            # Cut off, as when shutdown's bounded wait runs out: record it, and answer a 503 the
            # agent may retry elsewhere (rather than a bare 500 from the server).
            self.records.cancelled(ctx)
            raise ServiceUnavailable(CUT_OFF, code="shutting_down") from None

    def _context(self, incoming: Incoming) -> Context:
        request = incoming.request
        task = classify(request, incoming.task_header, self.policies)
        if incoming.key is not None and not incoming.key.allows(task or UNCLASSIFIED):
            name = incoming.key.name
            raise Forbidden(f"key {name!r} may not be used for task type {task or UNCLASSIFIED!r}")
        policy = self.policies.policies.get(task) if task else None
        view = self.rollouts.view(task) if task else None
        sticky_kind = policy.rollout.sticky_key if policy else "session"
        conversation = conversation_key(request)
        key = make_sticky_key(request, incoming.session, sticky_kind, conversation)
        route: Route = choose_route(task, key, view) if task and view else Route.GENERATIVE
        if route == Route.LOCAL and not self._local_serves(policy):
            route = Route.GENERATIVE  # models not loaded (yet): serve, and say so in the record
        decision = new_decision(
            id=new_id(),
            task_type=task or UNCLASSIFIED,
            path=DecisionPath.GENERATIVE,
            route=route,
            mode=view.mode if view else RolloutMode.OFF,
            sticky_hash=hash_key(key),
            conversation_hash=conversation,
            stream=request.stream,
            model=request.model,
            key_name=incoming.key.name if incoming.key else None,
        )
        if self.prompt_cap is not None:
            decision.prompt = stored_prompt(request, self.prompt_cap, self.redact)
        upstream = passthrough(policy.upstream if policy else self.policies.defaults.upstream, incoming)
        return Context(request, task or UNCLASSIFIED, policy, upstream, route, key, decision)

    def _local_serves(self, policy: Policy | None) -> bool:
        """The local engine is loaded, with this policy's model (one a reload named may be loading)."""
        return policy is not None and self.local.ready and self.local.serves(policy.engine.source)

    def use_local(self, engine: LocalEngine | ModelEngine | None) -> None:
        """Swap the local path in (the models loaded at start) or out (None)."""
        self.local = local_engine(engine)

    # -- local ---------------------------------------------------------------------------

    async def _try_local(self, ctx: Context, policy: Policy) -> Reply | None:
        """Serve from the local engine, or return None to fall back to the generative path."""
        try:
            choice = await self.decide(ctx.request, policy)
        except UnsupportedRequest as exc:  # the request's fault, not the engine's: an abstention
            ctx.decision.abstain_reason = f"unsupported: {exc.message}"
            await self._fall_back(ctx, policy, "abstain")
            return None
        except EngineUnavailable as exc:  # the shared engine process is away: not its answer's fault
            ctx.decision.error = f"local engine unavailable: {safe_text(exc.message)}"
            await self._fall_back(ctx, policy, "unavailable")
            return None
        except Exception as exc:  # a crash or MemoryError on this request: serve it generatively
            log.exception("local engine failed on task %s", ctx.task_type)
            ctx.decision.error = f"local engine error: {type(exc).__name__}: {safe_text(str(exc))}"
            await self._fall_back(ctx, policy, "error")
            return None
        if not choice.abstain_reason and self.learning:  # served only inside a certified region
            choice.abstain_reason = self.learning.uncertified(policy, choice)
        apply_choice(ctx.decision, choice)
        if choice.abstain_reason:
            ctx.abstained = choice
            await self._fall_back(ctx, policy, "abstain")
            return None
        if choice.fill_generative:  # the choice is local; the upstream writes the rest
            ctx.decision.path = DecisionPath.FALLBACK
            ctx.upstream_request = upstream_request(ctx.request, choice)
            ctx.fill_action = chosen_action(policy, choice)
            return None
        message = local_message(choice, ctx.request.legacy_functions)
        body = wire.completion(ctx.request.model or "shadowswitch-local", message)
        validity = check_answer(ctx.request, body["choices"][0]["message"], allowed_actions(policy))
        apply_validity(ctx.decision, validity)
        if not validity.valid:  # keep what local said beside the generative answer (the ramp counts it)
            ctx.decision.shadow = {"path": "local", "valid": False, "invalid_reason": validity.reason}
            await self._fall_back(ctx, policy, "invalid")
            return None
        # tool calls are judged by their tool result in the next request (rollouts/breaker.py)
        if not await self._settle(ctx, policy, "pending" if message.get("tool_calls") else "valid"):
            ctx.decision.path = DecisionPath.FALLBACK
            return None
        ctx.decision.path = DecisionPath.LOCAL
        if should_compare(ctx.decision.id, policy.rollout.compare_percent):
            self._compare(ctx, "generative", self.comparisons.generative(ctx, choice))
        return self.records.finish(ctx, body)

    async def _fall_back(self, ctx: Context, policy: Policy, event: str) -> None:
        ctx.decision.path = DecisionPath.FALLBACK
        await self._settle(ctx, policy, event)

    async def _settle(self, ctx: Context, policy: Policy, event: str) -> bool:
        """Count a local outcome before the response leaves, and say whether the local path may
        still answer. One request of a task type at a time per replica: a failure is written (and
        this replica's view patched) before the next request's outcome is looked at, so the
        breaker trips after exactly `consecutive_failures` of them, and a request decided while it
        tripped is neither served locally nor counted (its record says so)."""
        async with self._gates.setdefault(ctx.task_type, asyncio.Lock()):
            if choose_route(ctx.task_type, ctx.sticky, self.rollouts.view(ctx.task_type)) != Route.LOCAL:
                ctx.decision.abstain_reason = ctx.decision.abstain_reason or BREAKER_OPENED
                return False
            if counts_as(event, policy.breaker) is False:  # a failure: the next request must see it
                await self.outcome(policy, ctx.decision.id, event)
            else:
                self._local_event(policy, ctx.decision.id, event)
            return True

    def _local_event(self, policy: Policy, decision_id: str, event: str) -> None:
        if self.outcomes:
            self.spawn(self.outcomes.local_outcome(policy, decision_id, event))

    # -- generative ----------------------------------------------------------------------

    async def _generative(self, ctx: Context, stream: bool) -> Reply:
        request = ctx.upstream_request or ctx.request.raw
        try:
            ctx.decision.upstream_model = self.generative.upstream_model(request, ctx.upstream)
            if stream and ctx.fill_action is None:
                chunks = await self.generative.open_stream(request, ctx.upstream)
                return Reply(
                    ctx.decision.id, ctx.task_type, ctx.decision.path, stream=self._relay(ctx, chunks)
                )
            body = await self.generative.complete(request, ctx.upstream)
        except ShadowswitchError as exc:
            self.records.failure(ctx, exc)
            exc.headers.update(reply_headers(ctx.decision.id, ctx.task_type, ctx.decision.path))
            raise
        if ctx.fill_action is not None:
            body = with_action_text(body, ctx.fill_action, ctx.decision.arguments or {})
        validity = check_answer(ctx.request, wire.message_of(body), allowed_actions(ctx.policy))
        apply_validity(ctx.decision, validity)
        self._after_generative(ctx, wire.message_of(body))
        return self.records.finish(ctx, body)

    async def _relay(self, ctx: Context, chunks: AsyncIterator[dict[str, Any]]) -> AsyncIterator[bytes]:
        """Forward a stream as it comes (chunks that arrived together in one write), and record
        it once it has ended (before its last bytes leave: a process killed after the agent has
        its whole answer still has its record in the journal) or broken off."""
        joined = wire.MessageAccumulator()
        recorded = False
        try:
            async for burst in bursts(chunks):
                for chunk in burst.items:
                    joined.add(chunk)
                events: list[dict[str, Any] | str] = [*burst.items, *(["[DONE]"] if burst.last else [])]
                if burst.last:
                    self._record_stream(ctx, joined)
                    recorded = True
                yield b"".join(wire.sse(event) for event in events)
        except UpstreamError as exc:  # past the first byte the status is sent: say it in-stream
            ctx.decision.error = exc.message
            ctx.decision.status_code = exc.status_code
            yield wire.sse(exc.body())
        finally:
            if not recorded:
                self._record_stream(ctx, joined)

    def _record_stream(self, ctx: Context, joined: wire.MessageAccumulator) -> None:
        message = joined.message()
        apply_validity(ctx.decision, check_answer(ctx.request, message, allowed_actions(ctx.policy)))
        if ctx.decision.error:  # a broken-off answer is not a valid one, whatever it parses to
            ctx.decision.valid = False
        if joined.usage:
            ctx.decision.prompt_tokens = joined.usage.get("prompt_tokens")
            ctx.decision.completion_tokens = joined.usage.get("completion_tokens")
        self._after_generative(ctx, message)
        self.records.record(ctx, message)

    def _after_generative(self, ctx: Context, message: dict[str, Any]) -> None:
        if ctx.route == Route.SHADOW and ctx.policy is not None and self._local_serves(ctx.policy):
            self._compare(ctx, "local", self.comparisons.local(ctx, ctx.policy, message))
        if ctx.abstained is not None and ctx.upstream_request is None:
            self.learn(ctx, ctx.abstained, message)  # the upstream answered what the engine would not

    async def decide(self, request: ChatView, policy: Policy) -> Choice:
        """The local engine's choice, with the task type's learned state when one is served."""
        memory = self.learning.memory(policy) if self.learning else None
        if memory is None:
            return await self.local.decide(request, policy)
        return await self.local.decide(request, policy, memory)

    def learn(self, ctx: Context, choice: Choice, generative: dict[str, Any]) -> None:
        """A valid generative answer beside the local view of the same request: an exemplar."""
        if self.learning and ctx.policy is not None and ctx.decision.valid:
            observe = self.learning.observe(
                ctx.policy, ctx.decision.id, ctx.request, choice, generative, self.local
            )
            self.spawn(observe)

    # -- background comparisons ----------------------------------------------------------

    def _compare(self, ctx: Context, other: str, work: Any) -> None:
        """Run the other path in the background, never delaying the answer; bounded, and a run
        skipped for want of room is recorded on the decision and counted, not dropped unseen."""
        if not self.inflight.compare(work):
            self.recorder.update(ctx.decision.id, shadow={"path": other, "skipped": "comparison queue full"})
            if self.metrics:
                self.metrics.comparisons_skipped.labels(ctx.task_type).inc()

    async def outcome(self, policy: Policy, decision_id: str, event: str) -> None:
        if self.outcomes:
            await self.outcomes.local_outcome(policy, decision_id, event)

    def spawn(self, work: Any) -> None:
        self.inflight.spawn(work)

    async def drain(self) -> None:
        """Shutdown: wait for requests still finishing (the server has cut off any past its own
        wait; they record themselves) and for background shadow/compare runs and breaker events."""
        await self.inflight.drain()


def passthrough(upstream: Upstream, incoming: Incoming) -> Upstream:
    """The upstream with the caller's own provider key, when its policy passes it through."""
    if upstream.auth != "passthrough":
        return upstream
    if not incoming.provider_key:
        raise Unauthorized(
            "this task type sends your own provider key upstream: send it as the bearer token "
            "(and your agent key, if you have one, in X-Shadowswitch-Key)",
            code="invalid_api_key",
        )
    return upstream.with_caller_key(incoming.provider_key)
