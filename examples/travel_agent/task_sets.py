"""The task set in each language the demo speaks: the same ids and end states, the customers' own words."""

from __future__ import annotations

from examples.travel_agent.tasks import TASKS, Task
from examples.travel_agent.tasks_zh import TASKS_ZH

LANGUAGES = ("en", "zh")


def tasks_in(lang: str) -> list[Task]:
    """The task set written in `lang` ("en" or "zh")."""
    if lang not in LANGUAGES:
        raise ValueError(f"no task set in {lang!r}; choose from {', '.join(LANGUAGES)}")
    return TASKS_ZH if lang == "zh" else TASKS
