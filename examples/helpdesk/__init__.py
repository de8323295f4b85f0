"""An IT help-desk agent: the plain openai SDK, 33 tools over an in-memory back office, 208 tasks.

python -m examples.helpdesk --base-url http://127.0.0.1:8000/v1
"""

from examples.helpdesk.agent import HelpdeskAgent, TaskResult
from examples.helpdesk.backend import Backend, ToolError, fresh_backend
from examples.helpdesk.task_set import FAMILIES, TASKS
from examples.helpdesk.tasks import Task

__all__ = [
    "FAMILIES",
    "TASKS",
    "Backend",
    "HelpdeskAgent",
    "Task",
    "TaskResult",
    "ToolError",
    "fresh_backend",
]
