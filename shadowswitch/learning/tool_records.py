"""Per tool, the served state's record of the engine's calls: what `learn status` shows of why a
tool is served or held back."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from shadowswitch.learning import rules
from shadowswitch.learning.fit import Pair, args_rate
from shadowswitch.learning.memory import NO_TOOL, UNPROVEN, tallies, tool_prior, tool_rates, unproven


def tool_records(memory: Sequence[Pair]) -> list[dict[str, Any]]:
    """Per tool the served state's exemplars chose: the engine's calls of it judged and agreed, the
    record a call's gate falls back on (`memory.tool_prior`), and whether it is held back as
    unproven (`memory.unproven`): why a tool is served or not. Read as the served engine reads
    them (`served.ServedMemories.load`): the state's own pairs, its rules, their call agreement."""
    constants, unreliable = rules.learned_rules([(p.label, p.arguments) for p in memory])
    labels = np.array([p.label for p in memory], dtype=object)
    calls = np.array([p.call(constants, unreliable) for p in memory], dtype=np.float64)
    tally, rates, rate = tallies(labels, calls), tool_rates(labels, calls), args_rate(memory)
    out = []
    for tool in sorted(set(labels.tolist()) - {NO_TOOL}):
        agreed, judged = tally.get(tool, (0.0, 0))
        record = round(tool_prior(agreed, judged, rate), 3)
        held = unproven(rates.get(tool, UNPROVEN))
        out.append(
            {
                "tool": tool,
                "pairs": int((labels == tool).sum()),
                "judged": judged,
                "agreed": agreed,
                "record": record,
                "unproven": held,
            }
        )
    return out
