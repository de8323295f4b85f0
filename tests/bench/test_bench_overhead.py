"""`bench overhead` on a tiny input: the JSON it writes holds every cell, measured against the upstream."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.overhead.run import OverheadConfig, add_overheads, run_overhead, summarise


@pytest.mark.integration  # serves upstreams
def test_a_tiny_run_writes_every_cell_with_the_keyed_workers(tmp_path: Path) -> None:
    """One run for both (each shadowswitch target is a server of its own to start): every cell,
    and with `keys` a worker with an agent key and one with a rate-limited key beside the plain one."""
    out = tmp_path / "overhead.json"
    config = OverheadConfig(
        out=out,
        concurrencies=(1, 4),
        requests={1: 4, 4: 8},
        warmup=2,
        workers=(1,),
        litellm_proxy=False,
        keys=True,
    )
    run_overhead(config)
    results = json.loads(out.read_text())
    assert results["benchmark"] == "overhead"
    assert results["machine"]["cores"] and results["versions"]["litellm"] and "git_commit" in results
    assert "litellm-proxy" in results["skipped"]
    assert results["config"]["rounds"] == 3  # every server up at once, taking turns in each cell
    cells = results["cells"]
    targets = ("direct", "floor", "shadowswitch-1w", "shadowswitch-1w-key", "shadowswitch-1w-key-rpm")
    assert {(c["target"], c["stream"], c["concurrency"]) for c in cells} == {
        (t, s, c) for t in targets for s in (False, True) for c in (1, 4)
    }
    for cell in cells:  # a key the server did not take would show as errors (401)
        assert cell["errors"] == 0 and cell["ok"] == cell["requests"], cell["first_error"]
        assert cell["p50_ms"] > 0 and cell["throughput_rps"] > 0
        if cell["target"] == "direct":
            assert cell["added_p50_ms"] == 0 and cell["server_cpu_ms_per_request"] is None
        else:
            assert cell["added_p50_ms"] is not None and cell["server_cpu_ms_per_request"] > 0


def test_ratios_compare_one_shadowswitch_worker_with_litellms_proxy() -> None:
    def cell(target: str, conc: int, p50: float, rps: float) -> dict[str, object]:
        return {
            "target": target,
            "stream": False,
            "concurrency": conc,
            "p50_ms": p50,
            "p99_ms": p50,
            "throughput_rps": rps,
        }

    cells = [
        cell("direct", 1, 20, 45),
        cell("direct", 32, 22, 1400),
        cell("shadowswitch-1w", 1, 25, 40),
        cell("shadowswitch-1w", 32, 60, 300),
        cell("shadowswitch-2w", 32, 40, 540),
        cell("litellm-proxy", 1, 40, 25),
        cell("litellm-proxy", 32, 400, 75),
    ]
    add_overheads(cells)
    ratios = summarise(cells, 32)["non_stream"]
    assert ratios == {
        "added_p50_ratio_vs_litellm_proxy": 0.25,  # 5 ms added against 20
        "throughput_ratio_vs_litellm_proxy": 4.0,
        "two_worker_scaling": 1.8,
    }
