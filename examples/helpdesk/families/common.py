"""What the families share: the calls of each turn, and a person as tasks name them."""

from __future__ import annotations

from examples.helpdesk.data import PEOPLE
from examples.helpdesk.tasks import Call, Entity

Calls = tuple[tuple[Call, ...], ...]


def person(username: str, **extra: object) -> Entity:
    name, department = PEOPLE[username]
    return {"username": username, "name": name, "first": name.split()[0], "dept": department, **extra}
