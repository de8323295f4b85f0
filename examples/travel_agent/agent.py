"""The legacy agent: the plain `openai` SDK in a tool-calling loop, nothing shadowswitch-specific.

Each user turn: ask the model, run the tool calls it asks for, give it their results, and ask
again until it answers in text (or the step budget runs out). A call whose arguments are not
JSON is a parse failure: the agent tells the model, as agents do, and the model tries again.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from openai import OpenAI

from examples.travel_agent.backend import Backend, ToolError
from examples.travel_agent.tasks import Task, fresh_backend
from examples.travel_agent.tools import codes_only, tools_of

SYSTEM = {
    "en": (
        "You are the booking assistant of a travel agency. Act for the customer with the tools: search, "
        "book, cancel, refund and change bookings. Use exactly the values the customer gives. After the "
        "tools have run, tell the customer briefly what you did."
    ),
    "zh": (
        "你是一家旅行社的订票助手。用工具为客户办事：查询、预订、取消、退款和修改预订。"
        "客户给的信息照原样使用，日期按工具要求的格式写。工具执行完后，用中文简短地告诉客户你做了什么。"
    ),
}
MODEL = "travel-agent"


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

    @property
    def parse_failures(self) -> int:
        return sum(s.parse_failures for s in self.steps)


class TravelAgent:
    """Runs tasks against a model behind any OpenAI-compatible base URL."""

    def __init__(
        self,
        client: OpenAI,
        model: str = MODEL,
        tools_version: str = "v1",
        max_steps_per_turn: int = 5,
        user: str | None = None,
        lang: str = "en",
    ) -> None:
        self.client = client
        self.model = model
        self.tools_version = tools_version
        self.tools = tools_of(tools_version)
        self.max_steps = max_steps_per_turn
        self.user = user  # OpenAI's `user` field: the customer, also shadowswitch's sticky key
        self.system = SYSTEM[lang]  # the language the customers write in

    def run(self, task: Task, user: str | None = None) -> TaskResult:
        backend = fresh_backend(codes_only(self.tools_version))
        result = TaskResult(task.id, False, 0.0)
        messages: list[dict[str, Any]] = [{"role": "system", "content": self.system}]
        started = time.perf_counter()
        try:
            for turn in task.turns:
                messages.append({"role": "user", "content": turn.user})
                self._turn(messages, backend, result, user or self.user or task.id)
        except Exception as exc:  # an HTTP error ends the task as a failure, like a crash would
            result.error = f"{type(exc).__name__}: {exc}"
        result.seconds = time.perf_counter() - started
        result.success = result.error is None and task.check(backend)
        return result

    def _turn(self, messages: list[dict[str, Any]], backend: Backend, result: TaskResult, user: str) -> None:
        for _ in range(self.max_steps):
            started = time.perf_counter()
            raw = self.client.chat.completions.with_raw_response.create(
                model=self.model,
                messages=messages,
                tools=self.tools,
                user=user,  # type: ignore[arg-type]
            )
            message = raw.parse().choices[0].message
            calls = message.tool_calls or []
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
    """(the tool's result as the model will read it, whether the arguments parsed)."""
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
