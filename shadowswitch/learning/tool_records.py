"""Per tool, the served state's record of the engine's calls: what `learn status` shows of why a
tool is served or held back."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from shadowswitch.learning import rules
from shadowswitch.learning.fit import Pair, args_rate
from shadowswitch.learning.memory import NO_TOOL, Memory, tool_prior


def tool_records(pairs: Sequence[Pair]) -> list[dict[str, Any]]:
    """Per tool the served state's exemplars chose: the engine's calls of it judged and agreed, the
    record a call's gate falls back on (`memory.tool_prior`), and whether it is held back as
    unproven (`Memory.unproven`): why a tool is served or not. Read as the served engine reads
    them (`served.ServedMemories.load`): the state's own pairs, its rules, their call agreement,
    in a `Memory` of their calls alone (no vectors: nothing here looks for neighbours)."""
    constants, unreliable = rules.learned_rules(*rules.calls_of(pairs))
    labels = np.array([p.label for p in pairs], dtype=object)
    memory = Memory(
        version=0,
        encoder="",
        vectors=np.zeros((len(pairs), 0), dtype=np.float32),
        labels=labels,
        weight=0.0,
        min_confidence=1.0,
        calls=np.array([p.call(constants, unreliable) for p in pairs], dtype=np.float64),
        call_prior=args_rate(pairs),
    )
    out = []
    for tool in sorted(set(labels.tolist()) - {NO_TOOL}):
        agreed, judged = memory.tally.get(tool, (0.0, 0))
        out.append(
            {
                "tool": tool,
                "pairs": int((labels == tool).sum()),
                "judged": judged,
                "agreed": agreed,
                "record": round(tool_prior(agreed, judged, memory.call_prior), 3),
                "unproven": memory.unproven(tool),
            }
        )
    return out
