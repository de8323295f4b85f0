"""Every pair teaches the shortlist: the tools a learned state takes back into it.

The engine ranks at most `max_candidates` tools by the encoder's similarity alone; a pair whose
upstream tool was shortlisted away is kept (at zero-shot probability 0, `exemplar.py`) rather
than dropped. For a request like it, the learned state takes that tool back into the shortlist,
at zero-shot probability 0, and the trained head and the neighbours' vote decide on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from shadowswitch.learning.memory import Memory


def shortlisted_out(memory: Memory, sims: np.ndarray[Any, Any], left_out: Sequence[str]) -> list[str]:
    """Of the offered candidates the shortlist left out, those that exemplars as close as a
    neighbour (the memory's floor) chose."""
    if not len(memory.labels) or not left_out:
        return []
    mask = (sims >= memory.floor) & np.isin(memory.labels, list(left_out))
    return sorted(set(memory.labels[mask].tolist()))
