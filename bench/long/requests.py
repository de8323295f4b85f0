"""Shop-agent requests of a given length, each with a latest turn of its own.

A shop request (examples/shop) is its 1,810-word policy as the system prompt, the 14 tools'
schemas and the turns so far: about 4,600 tokens before the customer says anything. Longer ones
are longer sessions: the same customer service earlier in the day, other conversations' whole
message lists (turns, tool calls, JSON results, the goodbye), put before the conversation the
request is a step of. Shorter ones cut the policy to its first words. Tokens are counted with
the engine's language model's tokenizer over the whole request (messages and tools).

Two kinds of traffic:

- `first`: every request another conversation's step, after other conversations' history: no
  request shares its history with an earlier one (only the policy and the tools, as every
  request of one agent does);
- `steps`: whole conversations, their steps sent in order, as an agent sends them: step n is
  step n-1 with the model's answer and what followed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from bench.learning_demo import Step

Count = Callable[[str], int]


@dataclass(frozen=True)
class Conversation:
    id: str
    steps: list[Step]  # in order

    @property
    def history(self) -> list[dict[str, Any]]:
        """The whole conversation after the system prompt: its last request's messages and the
        model's last answer (a tool call's answer is left out: it has no result)."""
        last = self.steps[-1]
        messages = list(last.request["messages"][1:])
        if "content" in last.answer:
            messages.append({"role": "assistant", "content": last.answer["content"]})
        return messages


def conversations(steps: list[Step]) -> list[Conversation]:
    by_task: dict[str, list[Step]] = {}
    for step in steps:
        by_task.setdefault(step.task, []).append(step)
    return [Conversation(task, found) for task, found in by_task.items()]


def message_tokens(message: dict[str, Any], count: Count) -> int:
    return count(json.dumps(message, ensure_ascii=False))


class Builder:
    """Requests of about `target` tokens from `step`s, with history from a pool of conversations
    each used once (`history` returns them in turn)."""

    def __init__(self, pool: list[Conversation], count: Count) -> None:
        self.count = count
        self._pool = iter(pool)
        first = pool[0].steps[0].request
        self.system: str = first["messages"][0]["content"]
        self.tools: list[dict[str, Any]] = first["tools"]
        self.tools_tokens = count(json.dumps(self.tools, ensure_ascii=False))

    def tokens(self, messages: list[dict[str, Any]]) -> int:
        """The request's tokens: `messages` and the tools."""
        return sum(message_tokens(m, self.count) for m in messages) + self.tools_tokens

    def history(self, room: int) -> list[dict[str, Any]]:
        """Earlier conversations' messages, about `room` tokens of them (at least one fits)."""
        out: list[dict[str, Any]] = []
        while room > 0:
            earlier = next(self._pool, None)
            if earlier is None:
                raise ValueError("not enough conversations for the requests asked")
            messages = earlier.history
            out += messages
            room -= self.tokens(messages) - self.tools_tokens
        return out

    def system_prompt(self, room: int) -> dict[str, Any]:
        """The policy, cut to its first words where only `room` tokens are left for it."""
        words = self.system.split(" ")
        full = self.count(self.system)
        keep = len(words) if room >= full else max(20, len(words) * max(room, 0) // full)
        return {"role": "system", "content": " ".join(words[:keep])}

    def request(self, step: Step, history: list[dict[str, Any]], target: int) -> dict[str, Any]:
        """`step`'s request with `history` before its turns, its policy cut to fit `target`."""
        tail = list(step.request["messages"][1:])
        room = target - self.tokens([*history, *tail])
        return {"messages": [self.system_prompt(room), *history, *tail], "tools": self.tools}


def first_steps(builder: Builder, convs: list[Conversation], target: int, n: int) -> Iterator[dict[str, Any]]:
    """`n` requests, each a step of another conversation (a later step each time, in turn), each
    after history of its own."""
    for i, conv in enumerate(convs[:n]):
        step = conv.steps[i % len(conv.steps)]
        room = target - builder.tokens([builder.system_prompt(10**9), *step.request["messages"][1:]])
        history = builder.history(room) if room > 0 else []
        yield builder.request(step, history, target)


def conversation_steps(
    builder: Builder, convs: list[Conversation], target: int, n: int
) -> Iterator[tuple[str, dict[str, Any]]]:
    """Whole conversations until `n` requests, each after history sized so that its middle step
    is about `target` tokens: (conversation id, request), steps in order."""
    sent = 0
    for conv in convs:
        if sent >= n:
            return
        middle = conv.steps[len(conv.steps) // 2]
        room = target - builder.tokens([builder.system_prompt(10**9), *middle.request["messages"][1:]])
        history = builder.history(room) if room > 0 else []
        for step in conv.steps:
            yield conv.id, builder.request(step, history, target)
            sent += 1
