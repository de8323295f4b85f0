"""The one way a test waits: poll a check until it holds, or fail saying what was awaited.

`eventually` blocks; `eventually_async` is the same for a test that runs inside the event loop of
what it watches (blocking there would stop the very thing it waits for).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def eventually(check: Callable[[], T], timeout_s: float = 5.0, interval_s: float = 0.05, what: str = "") -> T:
    """Call `check` until it returns something truthy, and return that; fail after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while not (result := check()):
        _fail_after(deadline, timeout_s, what or repr(check))
        time.sleep(interval_s)
    return result


async def eventually_async(
    check: Callable[[], T], timeout_s: float = 5.0, interval_s: float = 0.05, what: str = ""
) -> T:
    deadline = time.monotonic() + timeout_s
    while not (result := check()):
        _fail_after(deadline, timeout_s, what or repr(check))
        await asyncio.sleep(interval_s)
    return result


def _fail_after(deadline: float, timeout_s: float, what: str) -> None:
    if time.monotonic() > deadline:
        raise AssertionError(f"not met within {timeout_s:g} s: {what}")
