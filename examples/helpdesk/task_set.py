"""The help desk's task set: 26 families of requests, 4 phrasings each, 2 tasks a phrasing (208 tasks).

"Today" is Wednesday 2027-03-10 (data.TODAY): where a user says "Friday" or "next Monday", the
model writes the date as the tools want it, which the user never typed.
"""

from __future__ import annotations

from examples.helpdesk.families import FAMILIES
from examples.helpdesk.tasks import MAX_PER_TEMPLATE, PER_TEMPLATE, Task


def written_out(per_template: int = PER_TEMPLATE) -> list[Task]:
    """Every family's templates, each written out for `per_template` entities."""
    return [task for family in FAMILIES for task in family.tasks(per_template)]


TASKS: list[Task] = written_out()
__all__ = ["FAMILIES", "MAX_PER_TEMPLATE", "TASKS", "written_out"]
