"""`shadowswitch demo --once` tells the whole story and leaves the evidence in its database."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import typer

from shadowswitch.rollouts.store.repository import RolloutRepository
from shadowswitch.store import db as database
from shadowswitch.store.decisions import DecisionStore
from shadowswitch.store.exemplars import ExemplarStore
from tests.support.demo import every_pair_kept

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_the_quick_demo_tells_its_story_shadow_canary_and_the_broken_upgrade(
    told_demo: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    """Shadow, canary 25% and 100%, the broken upgrade: every stage runs and is audited, and the
    canary stages ask the local engine inside the region the shadow pairs certified; the demo
    then says whether the breaker tripped."""
    workdir, out = told_demo
    engine = database.make_engine(f"sqlite:///{workdir / 'shadowswitch.db'}")
    rows = DecisionStore(engine).since(datetime.now(UTC) - timedelta(hours=1), "travel")
    served = {path: sum(1 for r in rows if r.path == path) for path in ("local", "generative", "fallback")}
    assert served["local"] + served["fallback"] > 0 and served["generative"] > 0
    assert any(r.agreement is not None for r in rows)  # shadow pairs were recorded
    # Every shadow step's run ended and made its pair, whatever the load: the certificate rests
    # on all of them (the task set's 175 steps a pass; two passes certify at 95%).
    shadow = every_pair_kept(rows)
    first = next(c for c in ExemplarStore(engine).certificates.history("travel") if c.status == "certified")
    assert first.version == 1 and first.threshold is not None
    assert first.figures["pairs"] == len(shadow) and len(shadow) % 175 == 0
    assert f"of the {len(shadow)} held-out pairs the certificate rests on" in out.stdout
    rollouts = RolloutRepository(engine)
    audit = rollouts.audit("travel", limit=50)
    kinds = [(e.new_mode, e.new_percent) for e in reversed(audit) if e.actor != "breaker"]
    assert ("shadow", 0) in kinds and ("canary", 25) in kinds and ("canary", 100) in kinds
    if rollouts.get("travel").breaker_state == "open":
        trip = next(e for e in audit if e.actor == "breaker")
        assert "negative feedback" in (trip.reason or "") and len(trip.decision_ids or []) == 3
    else:
        assert "the breaker did not trip in this run" in out.stdout


@pytest.mark.integration  # a process of its own
def test_the_demo_reaches_the_cli_as_a_plugin_entry_point() -> None:
    """The lab's project (bench/pyproject.toml, installed by `make lab`) registers `demo` in the
    `shadowswitch.cli` group; the product never imports it, and its wheel does not ship it."""
    project = tomllib.loads((ROOT / "bench" / "pyproject.toml").read_text())
    target = project["project"]["entry-points"]["shadowswitch.cli"]["demo"]
    module, _, name = target.partition(":")
    app = getattr(__import__(module, fromlist=[name]), name)
    assert isinstance(app, typer.Typer)
    help_text = subprocess.run(
        [sys.executable, "-m", "examples.demo.cli", "--help"], capture_output=True, text=True, cwd=ROOT
    )
    assert help_text.returncode == 0 and "upstream" in help_text.stdout and "--once" in help_text.stdout
    assert "examples*" in project["tool"]["setuptools"]["packages"]["find"]["include"]
    product = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert product["tool"]["setuptools"]["packages"]["find"]["include"] == ["shadowswitch*"]
    assert "entry-points" not in product["project"]
