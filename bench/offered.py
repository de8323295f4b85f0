"""Was the upstream's value among the values the engine was offered for a parameter?

The share of upstream arguments whose value the engine could have chosen: an enum's options, the
values the text offered the parameter (`trace.values`, the filler's or the memory's best),
the value it filled, and every value the request's memory offers the parameter (`pointer.offers`,
where the engine has a memory). A value nowhere among them can only be missed, whatever the
ranking; a value among them is one a better ranking may pick.
"""

from __future__ import annotations

from typing import Any

from shadowswitch.request import ChatView, normalise


def offered_values(engine: Any, view: ChatView, tool: str, choice: Any) -> dict[str, list[Any]]:
    """param → the values the engine was offered (the memory's all, not only the recorded best)."""
    offered = view.tool(tool)
    schema = (offered.parameters if offered else {}).get("properties") or {}
    out: dict[str, list[Any]] = {}
    for name, spec in schema.items():
        values = list((spec or {}).get("enum") or []) if isinstance(spec, dict) else []
        read = choice.trace.values.get(name)
        values += list(read.values) if read is not None else []
        if name in (choice.arguments or {}):
            values.append(choice.arguments[name])
        out[name] = values
    for name, values in _memory_offers(engine, view, offered.parameters if offered else {}).items():
        out.setdefault(name, []).extend(values)
    return out


def _memory_offers(engine: Any, view: ChatView, parameters: dict[str, Any]) -> dict[str, list[Any]]:
    try:
        from shadowswitch.engines.local.arguments.params import params_of
        from shadowswitch.engines.local.arguments.pointer import offers
        from shadowswitch.engines.local.arguments.today import stated_today
    except ImportError:  # an engine without a value memory
        return {}
    reader = getattr(engine.engine, "memories", None)
    if reader is None:
        return {}
    memory = reader.read(view, stated_today(view))
    return {p.name: [o.value for o in offers(p, memory)] for p in params_of(parameters)}


def among(value: Any, values: list[Any]) -> bool:
    wanted = normalise(value)
    return any(normalise(v) == wanted for v in values)
