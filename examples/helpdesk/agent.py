"""The help-desk agent: the plain `openai` SDK in a tool-calling loop, nothing shadowswitch-specific.

Each user turn: ask the model, run the tool calls it asks for against the back office, give it
their results (a refusal reads "error: ..."), and ask again until it answers in text or the step
budget runs out. Arguments that are not JSON are a parse failure the model is told about.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from openai import OpenAI

from examples.helpdesk.backend import Backend, ToolError, fresh_backend
from examples.helpdesk.data import TODAY
from examples.helpdesk.tasks import Task
from examples.helpdesk.tools import TOOLS

MODEL = "helpdesk-agent"
SYSTEM = (
    "You are the IT help desk of Northwind. Act for your colleagues with the tools: look people, "
    "tickets and devices up before you change them, and check a ticket's status before you close it. "
    f"Today is {TODAY:%A %Y-%m-%d}; write dates as YYYY-MM-DD. When the tools have run, tell the "
    "colleague briefly what you did, or why it could not be done."
)


@dataclass
class Step:
    """One model call: how long it took, which path served it (when a proxy says), what came back."""

    seconds: float
    path: str | None
    tool_calls: int
    parse_failures: int


@dataclass
class TaskResult:
    task_id: str
    success: bool
    seconds: float
    steps: list[Step] = field(default_factory=list)
    error: str | None = None  # the run broke off (HTTP error, step budget)


class HelpdeskAgent:
    """Runs tasks against a model behind any OpenAI-compatible base URL."""

    def __init__(self, client: OpenAI, model: str = MODEL, max_steps_per_turn: int = 6) -> None:
        self.client = client
        self.model = model
        self.max_steps = max_steps_per_turn

    def run(self, task: Task, user: str | None = None) -> TaskResult:
        backend = fresh_backend()
        result = TaskResult(task.id, False, 0.0)
        messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM}]
        started = time.perf_counter()
        try:
            for turn in task.turns:
                messages.append({"role": "user", "content": turn.user})
                self._turn(messages, backend, result, user or task.id)
        except Exception as exc:  # an HTTP error ends the task as a failure, as a crash would
            result.error = f"{type(exc).__name__}: {exc}"
        result.seconds = time.perf_counter() - started
        result.success = result.error is None and task.check(backend)
        return result

    def _turn(self, messages: list[dict[str, Any]], backend: Backend, result: TaskResult, user: str) -> None:
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
            outputs = [run_call(backend, c.function.name, c.function.arguments) for c in calls]
            failures = sum(1 for _, parsed in outputs if not parsed)
            path = raw.headers.get("x-shadowswitch-path")
            result.steps.append(Step(time.perf_counter() - started, path, len(calls), failures))
            if not calls:
                messages.append({"role": "assistant", "content": message.content or ""})
                return
            messages.append(message.model_dump(exclude_none=True, include={"role", "content", "tool_calls"}))
            for call, (output, _) in zip(calls, outputs, strict=True):
                messages.append({"role": "tool", "tool_call_id": call.id, "content": output})
        raise RuntimeError(f"no answer after {self.max_steps} steps")


def run_call(backend: Backend, name: str, arguments: str) -> tuple[str, bool]:
    """(the tool's result as the model reads it, whether the arguments parsed)."""
    try:
        parsed = json.loads(arguments or "{}")
        if not isinstance(parsed, dict):
            raise ValueError("arguments must be a JSON object")
    except ValueError as exc:
        return f"error: the arguments are not valid JSON ({exc}); send the call again", False
    try:
        return json.dumps(backend.call(name, parsed)), True
    except ToolError as exc:
        return f"error: {exc}", True
