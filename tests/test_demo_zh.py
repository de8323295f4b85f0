"""`shadowswitch demo --once --lang zh`: the story with customers writing Chinese.

Not part of `make test` (its CI must stay under 15 minutes; this story costs 70 s of CPU alone and
nearly three minutes beside the other lanes): `make test-demo-zh`, run it when the demo or the
Chinese engine changes. The Chinese engine itself is tested in tests/engine/test_chinese_engine.py.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from shadowswitch.rollouts.store.repository import RolloutRepository
from shadowswitch.store import db as database
from shadowswitch.store.decisions import DecisionStore
from tests.support.demo import every_pair_kept, quick_demo


@pytest.mark.slow
def test_the_quick_demo_in_chinese_tells_the_breaker_story(tmp_path: Path) -> None:
    """In Chinese the certified region is narrow and varies with the run: the canary stages ask
    the engine, and the demo says whether the breaker tripped."""
    out = quick_demo(tmp_path, 2, "--lang", "zh", trips=False)
    assert "customers write in Chinese" in out.stdout
    engine = database.make_engine(f"sqlite:///{tmp_path / 'shadowswitch.db'}")
    rows = DecisionStore(engine).since(datetime.now(UTC) - timedelta(hours=1), "travel")
    assert any(r.path in ("local", "fallback") for r in rows)  # the engine was asked in canary
    every_pair_kept(rows)
    tripped = RolloutRepository(engine).get("travel").breaker_state == "open"
    assert tripped or "the breaker did not trip in this run" in out.stdout
