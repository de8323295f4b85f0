"""Which task type is this request? The header wins; else the first policy whose rules match."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from shadowswitch.policy.models import Match, PolicySet

UNCLASSIFIED = "unclassified"


def classify(request: dict[str, Any], header_task: str | None, policies: PolicySet) -> str | None:
    """The task type of a request, or None when no policy claims it."""
    if header_task:
        return header_task if header_task in policies.policies else None
    for task_type, policy in policies.policies.items():
        if not policy.match.is_empty and matches(policy.match, request):
            return task_type
    return None


def matches(rule: Match, request: dict[str, Any]) -> bool:
    """Any rule that is set and holds claims the request (rules are alternatives)."""
    if rule.model and request.get("model") == rule.model:
        return True
    if rule.system_prompt_regex and _pattern(rule.system_prompt_regex).search(system_prompt(request)):
        return True
    if rule.tools_include:
        offered = set(tool_names(request))
        if offered and set(rule.tools_include) <= offered:
            return True
    return False


def system_prompt(request: dict[str, Any]) -> str:
    parts = []
    for message in request.get("messages") or []:
        if isinstance(message, dict) and message.get("role") in ("system", "developer"):
            parts.append(message_text(message))
    return "\n".join(parts)


def message_text(message: dict[str, Any]) -> str:
    """The text of a message, whether `content` is a string or a list of parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def tool_names(request: dict[str, Any]) -> list[str]:
    names = []
    for tool in request.get("tools") or []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            names.append(function["name"])
    return names


@lru_cache(maxsize=256)
def _pattern(regex: str) -> re.Pattern[str]:
    return re.compile(regex)
