"""Engine fixtures: the real embedded models, loaded once per test session."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="session")
def engine() -> Iterator[Any]:
    from shadowswitch.engines.local import create_engine

    built = create_engine()
    yield built
    built.close()
