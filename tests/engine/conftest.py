"""Engine fixtures: the real embedded models, loaded once per test session (tests/conftest.py)."""

from __future__ import annotations

import os
from typing import Any

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")


class ParsingEngine:
    """The real engine, given requests written as dicts: each is parsed into the typed view
    exactly as the API does (`ChatView.parse`) before the engine sees it."""

    def __init__(self, engine: Any) -> None:
        self._engine = engine

    async def decide(self, request: dict[str, Any], policy: Any) -> Any:
        from shadowswitch.request import ChatView

        return await self._engine.decide(ChatView.parse(request), policy)

    def decide_sync(self, request: dict[str, Any], policy: Any) -> Any:
        from shadowswitch.request import ChatView

        return self._engine.decide_sync(ChatView.parse(request), policy)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)


@pytest.fixture(scope="session")
def engine(local_engine: Any) -> ParsingEngine:
    """The session's real engine (conftest.py's `local_engine`), given requests as dicts."""
    return ParsingEngine(local_engine)
