"""The shop's customer-service agent: the plain `openai` SDK in a tool-calling loop, a long policy
as its system prompt, and a simulated customer on the other side of the chat.

Each customer turn: ask the model, run the tool calls it asks for against the back office and
give it their results (a refusal reads "error: ..."), until it answers in text; the customer
answers that text, until they are done. Nothing here is shadowswitch-specific.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from openai import OpenAI

from examples.shop.backend import WRITES, Backend, ToolError, fresh_backend
from examples.shop.customer import Customer
from examples.shop.policy import POLICY
from examples.shop.scenarios import Scenario
from examples.shop.tools import TOOLS

MODEL = "shop-agent"
MAX_TURNS = 12  # customer turns in one conversation


@dataclass
class Step:
    """One model call: how long it took, which path served it (when a proxy says), what it did."""

    seconds: float
    path: str | None
    tool: str | None  # the tool called, or None for a text reply


@dataclass
class Outcome:
    scenario_id: str
    success: bool
    seconds: float
    steps: list[Step] = field(default_factory=list)
    writes: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    error: str | None = None


class ShopAgent:
    """Runs scenarios against a model behind any OpenAI-compatible base URL."""

    def __init__(self, client: OpenAI, model: str = MODEL, max_steps_per_turn: int = 12) -> None:
        self.client = client
        self.model = model
        self.max_steps = max_steps_per_turn

    def run(self, scenario: Scenario, seed: int = 0) -> Outcome:
        backend = fresh_backend()
        customer = Customer(scenario, seed)
        outcome = Outcome(scenario.id, False, 0.0)
        messages: list[dict[str, Any]] = [{"role": "system", "content": POLICY}]
        started = time.perf_counter()
        said: str | None = customer.opening()
        try:
            for _ in range(MAX_TURNS):
                if said is None:
                    break
                messages.append({"role": "user", "content": said})
                said = customer.reply(self._turn(messages, backend, outcome, scenario.id))
            else:
                raise RuntimeError(f"the customer was still talking after {MAX_TURNS} turns")
        except Exception as exc:  # an HTTP error ends the conversation as a failure, as a crash would
            outcome.error = f"{type(exc).__name__}: {exc}"
        outcome.seconds = time.perf_counter() - started
        outcome.success = outcome.error is None and outcome.writes == [(n, a) for n, a in scenario.writes]
        return outcome

    def _turn(self, messages: list[dict[str, Any]], backend: Backend, outcome: Outcome, user: str) -> str:
        """The model's steps after a customer turn, until its text reply (returned)."""
        for _ in range(self.max_steps):
            started = time.perf_counter()
            raw = self.client.chat.completions.with_raw_response.create(
                model=self.model,
                messages=messages,  # type: ignore[arg-type]
                tools=TOOLS,  # type: ignore[arg-type]
                user=user,
            )
            message = raw.parse().choices[0].message
            calls = [c for c in message.tool_calls or [] if c.type == "function"]
            path = raw.headers.get("x-shadowswitch-path")
            outcome.steps.append(
                Step(time.perf_counter() - started, path, calls[0].function.name if calls else None)
            )
            if not calls:
                messages.append({"role": "assistant", "content": message.content or ""})
                return message.content or ""
            messages.append(message.model_dump(exclude_none=True, include={"role", "content", "tool_calls"}))
            for call in calls:
                content = run_call(backend, call.function.name, call.function.arguments, outcome)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
        raise RuntimeError(f"no text reply after {self.max_steps} steps")


def run_call(backend: Backend, name: str, arguments: str, outcome: Outcome) -> str:
    """The tool's result as the model reads it; a write that succeeds is kept on the outcome."""
    try:
        parsed = json.loads(arguments or "{}")
        if not isinstance(parsed, dict):
            raise ValueError("arguments must be a JSON object")
    except ValueError as exc:
        return f"error: the arguments are not valid JSON ({exc}); send the call again"
    try:
        result = backend.call(name, parsed)
    except ToolError as exc:
        return f"error: {exc}"
    if name in WRITES:
        outcome.writes.append((name, _checked(name, parsed)))
    return json.dumps(result)


def _checked(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A write's arguments as the task compares them: a transfer's free-text summary aside."""
    return {k: v for k, v in arguments.items() if not (name == "transfer_to_human" and k == "summary")}
