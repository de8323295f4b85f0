"""Where a text is written in Chinese: Han characters (the CJK Unified Ideographs blocks)."""

from __future__ import annotations

import re

CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
CJK_RUN = re.compile(CJK_RE.pattern + "+")


def has_chinese(text: str) -> bool:
    return CJK_RE.search(text) is not None
