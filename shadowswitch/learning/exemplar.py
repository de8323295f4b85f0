"""A generative answer and the local engine's view of the same request → an exemplar row.

Nothing of the prompt's text is kept but, where the policy tunes the encoder, the user's words it
read (redacted): the encoder vector, the upstream's choice, the zero-shot
probabilities, and per argument its JSON type, whether the value is in the conversation, the
value itself only when it is not (then it is something the upstream sets by itself, `units:
"metric"`, never something the user said), whether the engine's value agreed, and the names of the
rewrites that map the value the engine read from the text to the upstream's (`rewrites.py`), and
where the engine's value came from (`origins.py`); per optional parameter the text offered a value,
whether the engine and the upstream set it (`optional`, features only).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from shadowswitch.answers.messages import call_of, local_message, same_call
from shadowswitch.engines.base import Choice
from shadowswitch.engines.local.arguments.grounding import GROUNDED, Read
from shadowswitch.engines.local.arguments.rewrites import RegionOf, explaining
from shadowswitch.engines.local.conversation import TurnState, query_text, value_origin
from shadowswitch.learning import fillers
from shadowswitch.redact import Redactor
from shadowswitch.request import ChatView, message_text, normalise
from shadowswitch.store.tables import Exemplar

NO_TOOL = "__no_tool__"
MAX_CONSTANT_CHARS = 100
MAX_TEXT_CHARS = 2000  # of a kept text: the encoder reads 256 tokens at most


def build_exemplar(
    task_type: str,
    decision_id: str,
    request: ChatView,
    choice: Choice,
    generative: dict[str, Any],
    label_choice: Choice | None = None,
    blocked: list[str] | None = None,
    state: TurnState | None = None,
    region_of: RegionOf | None = None,
    texts: Redactor | None = None,
) -> Exemplar | None:
    """None when the pair teaches nothing: no vector (decided by rule), or the upstream's answer
    is not a choice among the offered tools (an action, parallel text...). `blocked`: the tools
    the engine would not serve on this request by rule (already called for this user turn);
    `state`: the last tool called this turn, its error, the step (what the trained head reads);
    `region_of`: the engine's place table, for the `region` rewrite; `texts`: the redactor the
    user's words the encoder read go through, to be kept for tuning it (None: no text kept)."""
    trace = choice.trace
    if trace.vector is None or not trace.zero_shot:
        return None
    vector, encoder, zero_shot = trace.vector, trace.encoder or "", trace.zero_shot
    call = call_of(generative)
    label = call.name or NO_TOOL
    if label not in zero_shot and (label == NO_TOOL or request.tool(label) is None):
        return None  # a tool the request did not offer, or no tool where one had to be called
    if label not in zero_shot:  # shortlisted away: it teaches the shortlist too (at zero-shot 0)
        zero_shot = {**zero_shot, label: 0.0}
    local_tool = choice.name if choice.kind == "tool" else NO_TOOL if choice.kind == "no_tool" else None
    if label_choice is not None and label_choice.name == label and label_choice.arguments is not None:
        choice, local_tool = label_choice, label  # the arguments it would give the upstream's tool
    return Exemplar(
        task_type=task_type,
        decision_id=decision_id,
        encoder=encoder,
        vector=vector,
        label=label,
        tools_key=tools_key(request),
        zero_shot=zero_shot,
        local_tool=local_tool,
        args_status=_args_status(choice, local_tool, label, generative),
        arguments=_arguments(call.arguments, request, choice, region_of) if label != NO_TOOL else None,
        optional=_optional(call.arguments, request, choice) if local_tool == label != NO_TOOL else None,
        blocked=sorted(blocked) if blocked else None,
        last_tool=state.last_tool if state else None,
        last_error=state.last_error if state else False,
        step=state.step if state else 0,
        turn={**(_turn(state, trace.ranks) or {}), **fillers.marks(request.messages, label != NO_TOOL)},
        context=trace.context,
        opening=trace.opening,
        texts=read_texts(request, texts) if texts is not None else None,
    )


def read_texts(request: ChatView, redact: Redactor) -> dict[str, str]:
    """The text of the exemplar's `vector`, redacted: what the encoder is tuned on and reads again
    with its tuned layers (`learning/tuning.py`)."""
    return {"query": redact(query_text(request))[:MAX_TEXT_CHARS]}


def _turn(state: TurnState | None, ranks: dict[str, dict[str, float]]) -> dict[str, Any] | None:
    """The conversation's state the head reads, with the tools ranked against its texts."""
    if state is None:
        return None
    return {**state.conversation, "ranks": ranks} if ranks else state.conversation or None


def tools_key(request: ChatView) -> str:
    names = sorted(t.name for t in request.tools)
    return hashlib.sha256(json.dumps(names).encode()).hexdigest()[:16]


def _args_status(choice: Choice, local_tool: str | None, label: str, generative: dict[str, Any]) -> str:
    """agree | differ | absent (differs only by values the engine left out, which a learned
    constant may supply) | missing (it would have abstained) | unknown | none (no tool)."""
    if label == NO_TOOL:
        return "none"
    if local_tool != label or choice.arguments is None:
        return "unknown"  # another tool, or it abstained before filling any arguments
    if (choice.abstain_reason or "").startswith(("missing_value", "invalid_arguments", "repeated_call")):
        return "missing"  # the engine would not have served its arguments
    if same_call(local_message(choice), generative):
        return "agree"
    wanted, given = call_of(generative).arguments, choice.arguments or {}  # agrees on all it filled?
    if isinstance(wanted, dict) and set(given) <= set(wanted):
        rest = {k: v for k, v in wanted.items() if k not in given}
        if rest and same_call(_with_arguments(generative, {**given, **rest}), generative):
            return "absent"
    return "differ"


def _with_arguments(message: dict[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """A call of `message`'s tool with these arguments."""
    name = call_of(message).name or ""
    call = {"id": "x", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def _arguments(
    arguments: Any, request: ChatView, choice: Choice, region_of: RegionOf | None
) -> dict[str, Any] | None:
    if not isinstance(arguments, dict):
        return None
    local = choice.arguments or {}
    conversation = " ".join(message_text(m) for m in request.messages).lower()
    # Argument by argument agreement says whether the call agrees once learned values apply; not
    # when the engine also set a parameter the upstream did not (no learned value removes one).
    comparable = set(normalise(local)) <= set(arguments)
    out: dict[str, Any] = {}
    for name, value in arguments.items():
        shown = value if isinstance(value, str) else json.dumps(value)
        in_text = bool(shown) and shown.lower() in conversation
        entry: dict[str, Any] = {"type": type(value).__name__, "in_text": in_text, "local": name in local}
        origin = value_origin((choice.sources or {}).get(name) or {}, request) if name in local else None
        if origin:
            entry["origin"] = origin  # where the engine's value came from (`learning/origins.py`)
        if not in_text and _is_constant(value, conversation):
            entry["value"] = value
        if comparable:
            entry["agrees"] = _agrees(local, name, value)
        read = _grounded(choice, name)
        if read is not None:
            entry["transforms"] = explaining(read[0], value, region_of)
        found = offered_entry(choice.trace.values.get(name), read, value)
        if found is not None:
            entry["offered"] = found  # what a learned value ranking is fitted on (`values.py`)
        out[name] = entry
    return out


def _agrees(local: dict[str, Any], name: str, value: Any) -> bool:
    return name in local and normalise(local[name]) == normalise(value)


def _optional(arguments: Any, request: ChatView, choice: Choice) -> dict[str, Any] | None:
    """Per optional parameter of the upstream's tool that the text offered values (`params`): the
    features of the value the engine fills, whether it set it from the text, and whether the
    upstream left it out (`out`), set it to that value (`top`) or to another (`other`): what the
    learned weights of setting it are fitted on (`learning/optional.py`). Where every parameter
    the engine set and the upstream left out is one of those, also each of the upstream's
    arguments' agreement (`agrees`), which `arguments` does not keep then."""
    tool = request.tool(choice.name)
    if tool is None or not isinstance(arguments, dict) or choice.arguments is None:
        return None
    required = set(tool.parameters.get("required") or [])
    local, sources = choice.arguments, choice.sources or {}
    params: dict[str, Any] = {}
    for name, read in choice.trace.values.items():
        from_text = (sources.get(name) or {}).get("source") == "text"
        if name in required or not read.values or (name in local and not from_text):
            continue
        best = read.picked if name in local and read.picked >= 0 else read.first
        if best < 0:
            continue  # not the filler's reading: no first value known
        done = "out" if name not in arguments else "other"
        if done == "other" and normalise(read.values[best]) == normalise(arguments[name]):
            done = "top"
        features = {k: round(v, 4) for k, v in read.features[best].items() if v}
        params[name] = {"features": features, "filled": name in local, "set": done}
    if not params:
        return None
    record: dict[str, Any] = {"params": params}
    extra = set(normalise(local)) - set(arguments)
    if extra and extra <= {k for k, r in params.items() if r["set"] == "out"}:
        record["agrees"] = {name: _agrees(local, name, value) for name, value in arguments.items()}
    return record


def offered_entry(read: Read | None, filled: tuple[Any] | None, upstream: Any) -> dict[str, Any] | None:
    """The features of the values the text offered the parameter, the index of the one the engine
    filled (-1: it filled another, or none) and of the upstream's (-1: none); not the values."""
    if read is None or len(read.values) < 2:
        return None
    keys = [normalise(v) for v in read.values]
    picked = read.picked if filled is not None and 0 <= read.picked < len(keys) else -1
    if picked >= 0 and keys[picked] != normalise(filled[0] if filled else None):
        picked = -1  # the value was replaced after the text's reading (a look-up's result)
    match = keys.index(normalise(upstream)) if normalise(upstream) in keys else -1
    features = [{k: round(v, 4) for k, v in f.items() if v} for f in read.features]
    return {"features": features, "picked": picked, "match": match}


def _grounded(choice: Choice, name: str) -> tuple[Any] | None:
    """The value the engine read from the conversation for `name` (before a learned transform
    rewrote it), or None when it filled none from the text."""
    source = (choice.sources or {}).get(name) or {}
    if source.get("source") == "learned_transform":
        return (source.get("from"),)
    if source.get("source") in GROUNDED and name in (choice.arguments or {}):
        return ((choice.arguments or {})[name],)
    return None


def _is_constant(value: Any, conversation: str) -> bool:
    """Kept only for scalars that share no word with the conversation: a value derived from what
    the user said ("Los Angeles" → "Los Angeles, CA") is not the upstream's constant."""
    if isinstance(value, bool | int | float):
        return True
    if not isinstance(value, str) or len(value) > MAX_CONSTANT_CHARS:
        return False
    words = [w for w in re.findall(r"\w+", value.lower()) if len(w) >= 3]
    return not any(re.search(rf"\b{re.escape(w)}\b", conversation) for w in words)
