"""The task set: what colleagues ask the help desk, in their own words, and the calls a good agent makes.

Tasks come in families (a kind of request: unlock an account, close a ticket...). A family has
several phrasing templates and a list of entities (people, tickets, products); each template is
written out for a few entities. `Task.template` names the phrasing, so a traffic split can hold
out whole templates: a test request is then worded in a way never seen in the shadow stream.

A task is checked on its end state: the back office after the agent's run must equal the back
office after the expected calls alone. An expected call marked `fails` is one the back office
refuses (a full licence pool, a disabled account, a ticket that does not exist): the good model
makes it, reads the error and tells the user. The expected calls also tell the simulated large
model (examples/helpdesk/simulated.py) what a good model would do. The families themselves are in
families/, the task list in task_set.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from examples.helpdesk.backend import Backend, ToolError, fresh_backend

PER_TEMPLATE = 2  # tasks written out of each template
MAX_PER_TEMPLATE = 8  # a longer stream (bench/learning_helpdesk.py) writes out up to this many


@dataclass(frozen=True)
class Call:
    name: str
    arguments: dict[str, Any]
    fails: bool = False  # the back office refuses it: the model reads the error and says so


@dataclass(frozen=True)
class Turn:
    user: str
    calls: tuple[Call, ...] = ()


@dataclass(frozen=True)
class Task:
    id: str
    turns: tuple[Turn, ...]
    kind: str  # the family
    template: str  # "family/n": the phrasing it is written in

    @property
    def tags(self) -> tuple[str, ...]:
        return (self.kind,)

    def check(self, backend: Backend) -> bool:
        """Did the agent leave the back office as the expected calls would?"""
        return backend.state() == expected_state(self)


def expected_state(task: Task) -> dict[str, Any]:
    backend = fresh_backend()
    for turn in task.turns:
        for call in turn.calls:
            try:
                backend.call(call.name, dict(call.arguments))
            except ToolError as exc:
                if not call.fails:
                    raise AssertionError(f"task {task.id}: expected call {call} fails: {exc}") from None
            else:
                if call.fails:
                    raise AssertionError(f"task {task.id}: {call} was expected to fail")
    return backend.state()


def C(name: str, **arguments: Any) -> Call:
    return Call(name, arguments)


def F(name: str, **arguments: Any) -> Call:
    """A call the back office refuses."""
    return Call(name, arguments, fails=True)


Entity = dict[str, Any]


@dataclass(frozen=True)
class Family:
    """One kind of request: its phrasings, its entities, and the calls each turn needs.

    `calls(entity)` gives the calls of each turn that has any; a template may add turns after
    them (a thank-you) that the model answers in text.
    """

    kind: str
    templates: tuple[tuple[str, ...], ...]
    entities: Sequence[Entity]
    calls: Callable[[Entity], tuple[tuple[Call, ...], ...]]

    def tasks(self, per_template: int = PER_TEMPLATE) -> list[Task]:
        """Each template written out for `per_template` entities (in turn, wrapping around)."""
        if not 1 <= per_template <= MAX_PER_TEMPLATE:
            raise ValueError(f"per_template {per_template}: 1 to {MAX_PER_TEMPLATE}")
        out: list[Task] = []
        for t, template in enumerate(self.templates):
            for j in range(per_template):
                entity = self.entities[(t * per_template + j) % len(self.entities)]
                groups = self.calls(entity)
                if len(template) < len(groups):
                    raise ValueError(f"{self.kind}/{t + 1}: fewer turns than call groups")
                turns = tuple(
                    Turn(text.format(**entity), groups[i] if i < len(groups) else ())
                    for i, text in enumerate(template)
                )
                out.append(
                    Task(f"{self.kind}-{t + 1}{'abcdefgh'[j]}", turns, self.kind, f"{self.kind}/{t + 1}")
                )
        return out
