"""Durations as people write them: `24h`, `30m`, `7d`."""

from __future__ import annotations

import re
from datetime import timedelta


def parse_since(text: str) -> timedelta:
    """`24h`, `30m`, `7d`, `90s`, `2w` → a timedelta; ValueError on anything else."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*", text or "")
    if not match:
        raise ValueError(f"cannot read the duration {text!r}; use e.g. 24h, 30m, 7d")
    unit = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}[match.group(2)]
    return timedelta(**{unit: float(match.group(1))})
