"""Build the legal candidates for one request with rules; the model only ranks what survives."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from shadowswitch.engines.base import ChoiceKind
from shadowswitch.engines.local.schema import find_enum_property, normalise
from shadowswitch.policy.models import Action, Policy
from shadowswitch.request import ChatView, OfferedTool

NO_TOOL_ID = "__no_tool__"
NO_TOOL_TEXT = "answer directly: reply in plain text without calling any tool"


@dataclass(frozen=True)
class Candidate:
    id: str
    kind: ChoiceKind
    text: str  # what the models read: the name in words, then the description
    examples: tuple[str, ...] = ()
    parameters: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    value: Any = field(default=None, compare=False, hash=False)  # enum value / Action


@dataclass
class CandidateSet:
    candidates: list[Candidate]
    filtered: list[tuple[str, str]] = field(default_factory=list)  # (id, why)
    forced: Candidate | None = None  # decided by rule, no model needed
    abstain_reason: str | None = None


def humanise(name: str) -> str:
    """`getWeather_v2.fetch` → `get weather v2 fetch`: names the encoder can read."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)
    return re.sub(r"[_.\-/]+", " ", spaced).strip().lower()


def no_tool_candidate() -> Candidate:
    return Candidate(NO_TOOL_ID, "no_tool", NO_TOOL_TEXT)


def build_candidates(request: ChatView, policy: Policy) -> CandidateSet:
    kind = policy.engine.candidates
    if kind == "actions":
        return CandidateSet([action_candidate(a) for a in policy.actions])
    if kind == "schema_enum":
        return enum_candidates(request)
    return tool_candidates(request, policy.engine.allow_no_tool)


def action_candidate(action: Action) -> Candidate:
    text = f"{humanise(action.id)}: {action.description}"
    return Candidate(action.id, "action", text, tuple(action.examples), value=action)


def offered_tools(request: ChatView) -> list[Candidate]:
    return [tool_candidate(t) for t in request.tools]


def tool_candidate(tool: OfferedTool) -> Candidate:
    text = f"{humanise(tool.name)}: {tool.description}" if tool.description else humanise(tool.name)
    return Candidate(tool.name, "tool", text, parameters=normalise(tool.parameters))


def tool_candidates(request: ChatView, allow_no_tool: bool) -> CandidateSet:
    tools = offered_tools(request)
    mode = request.tool_mode
    if mode == "none" or (not tools and allow_no_tool and mode == "auto"):
        return CandidateSet([], forced=no_tool_candidate())
    if request.forced_tool is not None:
        tools = [t for t in tools if t.id == request.forced_tool]
        if not tools:
            return CandidateSet([], [(request.forced_tool, "not_offered")], None, "forced tool not offered")
    kept, dropped = _drop_repeated(tools, request)
    with_no_tool = allow_no_tool and mode == "auto"
    result = CandidateSet(kept + ([no_tool_candidate()] if with_no_tool else []), dropped)
    if not kept:
        result.abstain_reason = "no_candidates: every tool was filtered"
        if with_no_tool:
            result.forced, result.abstain_reason = no_tool_candidate(), None
    return result


def _drop_repeated(
    tools: list[Candidate], request: ChatView
) -> tuple[list[Candidate], list[tuple[str, str]]]:
    """A tool without parameters that was already called would repeat the same call exactly."""
    done = {name for name, args in request.previous_calls if args in ("{}", "")}
    kept = [t for t in tools if not (t.id in done and not t.parameters.get("properties"))]
    dropped = [(t.id, "repeated_call") for t in tools if t not in kept]
    return kept, dropped


def response_schema(request: ChatView) -> dict[str, Any] | None:
    fmt = request.response_format
    if not isinstance(fmt, dict) or fmt.get("type") != "json_schema":
        return None
    spec = fmt.get("json_schema")
    schema = spec.get("schema") if isinstance(spec, dict) else None
    return normalise(schema) if isinstance(schema, dict) else None


def enum_candidates(request: ChatView) -> CandidateSet:
    schema = response_schema(request)
    found = find_enum_property(schema) if schema else None
    if schema is None or found is None:
        return CandidateSet([], abstain_reason="no_candidates: response_format has no enum")
    prop, values = found
    cands = [
        Candidate(_enum_id(v), "enum", f"{humanise(prop)}: {_enum_id(v)}", value=v, parameters=schema)
        for v in values
    ]
    return CandidateSet(cands)


def _enum_id(value: Any) -> str:
    return value if isinstance(value, str) else repr(value)
