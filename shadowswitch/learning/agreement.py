"""Whether the engine's call of the upstream's tool agreed once a state's learned values apply:
what learning's replay counts for each pair, as serving would fill the call."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from shadowswitch.engines.local.learned_state import Unreliable, pointer_of, rankings_of, setting
from shadowswitch.learning.optional import settled
from shadowswitch.learning.origins import vetoed
from shadowswitch.learning.transforms import explained
from shadowswitch.learning.values import pointed_call

NO_TOOL = "__no_tool__"


def call_agreed(
    label: str,
    local_tool: str | None,
    status: str,
    arguments: Mapping[str, Any] | None,
    constants: Mapping[str, Mapping[str, Any]],
    unreliable: Unreliable | None = None,
    optional: Mapping[str, Any] | None = None,
) -> float:
    """1 when the engine's call of the upstream's tool agreed, or agrees once the state's learned
    values apply (a constant for a value the engine left out, a transform of a value it read), 0
    when it does not, nan when not known (another tool filled, or it would have abstained for a
    missing value or a value of an unreliable origin, which it does at serving time too), with
    the memory's values as the state's learned pointer fills them (`values.pointed_call`) and its
    optional parameters set as the state's weights say (`optional.settled`: `optional` is
    the exemplar's record)."""
    status, arguments = pointed_call(status, arguments, pointer_of(constants), label)
    learned_setting = {k: s for k, w in rankings_of(constants.get(label, {})).items() if (s := setting(w))}
    status, arguments = settled(status, arguments, optional, learned_setting)
    if label == NO_TOOL or local_tool != label or status not in ("agree", "differ", "absent"):
        return float("nan")
    if vetoed(arguments, (unreliable or {}).get(label)):
        return float("nan")
    learned = constants.get(label, {})
    entries = arguments or {}
    if entries and all("agrees" in v for v in entries.values()):  # judged argument by argument
        return float(all(explained(v, learned, k) for k, v in entries.items()))
    if status == "absent":
        left = {k: v for k, v in entries.items() if not v.get("local")}
        supplied = all(k in learned and v.get("value") == learned[k] for k, v in left.items())
        return float(bool(left) and supplied)
    return float(status == "agree")
