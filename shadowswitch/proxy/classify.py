"""Which task type is this request? The header wins; else the first policy whose rules match."""

from __future__ import annotations

import re
from functools import lru_cache

from shadowswitch.policy.models import Match, PolicySet
from shadowswitch.request import ChatView

UNCLASSIFIED = "unclassified"


def classify(request: ChatView, header_task: str | None, policies: PolicySet) -> str | None:
    """The task type of a request, or None when no policy claims it."""
    if header_task:
        return header_task if header_task in policies.policies else None
    for task_type, policy in policies.policies.items():
        if not policy.match.is_empty and matches(policy.match, request):
            return task_type
    return None


def matches(rule: Match, request: ChatView) -> bool:
    """Any rule that is set and holds claims the request (rules are alternatives)."""
    if rule.model and request.model == rule.model:
        return True
    if rule.system_prompt_regex and _pattern(rule.system_prompt_regex).search(request.system_prompt):
        return True
    if rule.tools_include:
        offered = {t.name for t in request.tools}
        if offered and set(rule.tools_include) <= offered:
            return True
    return False


@lru_cache(maxsize=256)
def _pattern(regex: str) -> re.Pattern[str]:
    return re.compile(regex)
