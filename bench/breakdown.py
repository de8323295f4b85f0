"""Per-decision breakdown of a learning checkpoint: per tool and per argument, not one figure.

Per tool the upstream called (or `__text__` where it replied in text): how many test steps the
local engine answered right, answered wrong (and with what instead), abstained on, or left to the
generative path for another reason. Per argument (`tool.parameter`) of the upstream's calls: its
value right, wrong or missing where the engine chose that tool and filled its arguments
(`not_filled` when it abstained before filling them, `not_judged` when it chose another tool),
and where the upstream's value came from in the request — a tool result (with its JSON path), an
earlier assistant turn, a user turn, the system prompt, or nowhere (a value the upstream wrote
itself, or mistyped).
The same counts by origin show which kind of value a learning change gained or lost. `steps`
lists each test step in order (the upstream's tool, the engine's choice, its confidence, the
outcome), so that two runs can be compared step by step.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from typing import Any

from shadowswitch.request import normalise

NO_TOOL = "__no_tool__"
TEXT = "__text__"
ORIGINS = ("tool_result", "assistant", "user", "system", "nowhere")


def breakdown(
    cases: list[Any],
    decisions: list[dict[str, Any]],
    answer_of: Callable[[Any], dict[str, Any]],
    judged: list[dict[str, Any]],
) -> dict[str, Any]:
    """The per-tool and per-argument counts of one checkpoint's test steps."""
    tools: dict[str, Counter[str]] = defaultdict(Counter)
    instead: dict[str, Counter[str]] = defaultdict(Counter)
    arguments: dict[str, Counter[str]] = defaultdict(Counter)
    origins: dict[str, Counter[str]] = defaultdict(Counter)
    paths: Counter[str] = Counter()
    steps: list[dict[str, Any]] = []
    for case, decision, verdict in zip(cases, decisions, judged, strict=True):
        answer = answer_of(case)
        tool = str(answer.get("name") or TEXT)
        outcome = _outcome(decision, verdict)
        tools[tool][outcome] += 1
        chosen = str(decision.get("chosen") or "")
        confidence = decision.get("confidence")
        steps.append(
            {
                "upstream": tool,
                "chosen": TEXT if chosen == NO_TOOL else chosen or None,
                "confidence": None if confidence is None else round(float(confidence), 3),
                "outcome": outcome,
            }
        )
        if outcome == "wrong" and chosen != tool:
            instead[tool][TEXT if chosen == NO_TOOL else chosen] += 1
        if tool == TEXT:
            continue
        given = dict(decision.get("arguments") or {})
        filled = chosen == tool and (verdict["served"] or bool(given))  # an abstention fills none
        unjudged = None if filled else "not_filled" if chosen == tool else "not_judged"
        for name, value in (answer.get("arguments") or {}).items():
            origin, path = origin_of(case.request["messages"], value)
            result = unjudged or _value_result(given, name, value)
            arguments[f"{tool}.{name}"].update((result, f"from_{origin}"))
            origins[origin][result] += 1
            paths.update([path] if path else [])
    calls: Counter[str] = Counter()
    for tool, counts in tools.items():
        if tool != TEXT:
            calls.update(counts)
    return {
        "tool_call_steps": _order(calls),
        "text_steps": {
            **_order(tools.get(TEXT, Counter())),
            "answered_with_a_call": sum(instead[TEXT].values()),
        },
        "tools": {
            t: {**_order(c), "instead": dict(instead[t].most_common())} for t, c in sorted(tools.items())
        },
        "arguments": {k: _order(c) for k, c in sorted(arguments.items())},
        "origins": {o: _order(origins[o]) for o in ORIGINS if o in origins},
        "tool_result_paths": dict(paths.most_common(25)),
        "steps": steps,  # each test step in order: the upstream's tool, the engine's, how it went
    }


def _outcome(decision: dict[str, Any], verdict: dict[str, Any]) -> str:
    if verdict["served"]:
        return "right" if verdict["agree"] else "wrong"
    return "abstained" if decision.get("abstain_reason") else "fallback"


def _value_result(given: dict[str, Any], name: str, value: Any) -> str:
    if name not in given:
        return "missing"
    return "right" if normalise(given[name]) == normalise(value) else "wrong"


def _order(counts: Counter[str]) -> dict[str, int]:
    return dict(sorted(counts.items()))


def origin_of(messages: list[dict[str, Any]], value: Any) -> tuple[str, str | None]:
    """Where `value` appears in the request, the strongest source first: (origin, JSON path of the
    tool result, "tool:path" with list indexes as [], when it came from one). A list's origin is
    its elements' when they share one."""
    if isinstance(value, list):
        found = {origin_of(messages, v) for v in value}
        return next(iter(found)) if len(found) == 1 else (min((o for o, _ in found), key=ORIGINS.index), None)
    wanted = normalise(value)
    if wanted in ("", None):
        return "nowhere", None
    names = _tool_names(messages)
    for message in reversed(messages):
        if message.get("role") == "tool":
            path = _leaf_path(message.get("content"), wanted)
            if path is not None:
                return "tool_result", f"{names.get(str(message.get('tool_call_id')), '?')}:{path}"
    for role, origin in (("assistant", "assistant"), ("user", "user"), ("system", "system")):
        if any(_contains(_text(m), wanted) for m in messages if m.get("role") == role):
            return origin, None
    return "nowhere", None


def _tool_names(messages: list[dict[str, Any]]) -> dict[str, str]:
    return {
        str(call.get("id")): str((call.get("function") or {}).get("name"))
        for m in messages
        for call in m.get("tool_calls") or []
    }


def _leaf_path(content: Any, wanted: Any) -> str | None:
    """The path of the first leaf of a JSON tool result equal to `wanted`; "text" when the result
    only contains it as words."""
    try:
        record = json.loads(content) if isinstance(content, str) else content
    except ValueError:
        record = None
    if record is not None:
        for path, leaf in _leaves(record, ""):
            if normalise(leaf) == wanted:
                return path or "$"
    return "text" if isinstance(content, str) and _contains(content, wanted) else None


def _leaves(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _leaves(child, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for child in value:
            yield from _leaves(child, f"{path}[]")
    else:
        yield path, value


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    parts = [content if isinstance(content, str) else ""]
    parts += [str((c.get("function") or {}).get("arguments", "")) for c in message.get("tool_calls") or []]
    return " ".join(parts)


def _contains(text: str, wanted: Any) -> bool:
    needle = str(int(wanted) if isinstance(wanted, float) and wanted.is_integer() else wanted)
    pattern = rf"(?<![\w]){re.escape(needle)}(?![\w])"
    return re.search(pattern, " ".join(text.lower().split())) is not None
