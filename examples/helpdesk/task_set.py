"""The help desk's task set: 26 families of requests, 4 phrasings each, 2 tasks a phrasing (208 tasks).

"Today" is Wednesday 2027-03-10 (data.TODAY): where a user says "Friday" or "next Monday", the
model writes the date as the tools want it, which the user never typed.
"""

from __future__ import annotations

from examples.helpdesk.families import FAMILIES
from examples.helpdesk.tasks import Task

TASKS: list[Task] = [task for family in FAMILIES for task in family.tasks()]
__all__ = ["FAMILIES", "TASKS"]
