"""`bench scaling` serving two checkouts in turn, through real servers: `make test-bench`, not
`make test` (two more server start-ups)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.bfcl.results import git_commit
from bench.scaling.run import ScalingConfig, run_scaling


@pytest.mark.slow
def test_simple_traffic_through_two_checkouts_is_answered_locally(tmp_path: Path) -> None:
    """The simple traffic's values are in its texts: the engine answers it itself, right; and
    each checkout listed is served in turn, named in the results."""
    out = tmp_path / "scaling.json"
    here = Path(__file__).resolve().parents[2]
    config = ScalingConfig(
        out=out,
        tools=(8,),
        concurrencies=(2,),
        per_size=8,
        per_concurrency=8,
        traffic="simple",
        sources=(here, here),
    )
    run_scaling(config)
    results = json.loads(out.read_text())
    assert results["config"]["traffic"] == "simple" and len(results["config"]["sources"]) == 2
    assert [run["source"] for run in results["by_workers"]] == [git_commit(here)] * 2
    for run in results["by_workers"]:
        for row in run["by_tools"] + run["by_concurrency"]:
            assert row["errors"] == 0 and row["paths"].get("local", 0) >= 6 and row["right_tool"] >= 0.75
