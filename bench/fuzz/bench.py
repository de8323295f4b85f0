"""`shadowswitch bench fuzz`: the long fuzz run against a real `shadowswitch serve`, to JSON."""

from __future__ import annotations

import json
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from bench.bfcl.proxy import running_proxy
from bench.bfcl.results import git_commit, machine_info
from bench.fuzz.run import Report, fuzz_api, fuzz_policies, fuzz_tool_schemas
from examples.upstreams.stub import StubUpstream

TOKEN = "fuzz-bench-admin"
TOOLS_TASK = "fuzz_tools"


def write_policies(folder: Path, stub_url: str) -> None:
    """The stub upstream for everything; one task type served locally, never reverted."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "_defaults.yaml").write_text(
        yaml.safe_dump({"upstream": {"model": "openai/stub", "api_base": stub_url}})
    )
    policy = {
        "task_type": TOOLS_TASK,
        "rollout": {"mode": "canary", "percent": 100},
        "engine": {"min_confidence": 0.0, "min_margin": 0.0, "certify": False},
        "breaker": {"consecutive_failures": 1000},
    }
    (folder / f"{TOOLS_TASK}.yaml").write_text(yaml.safe_dump(policy))


def run_fuzz(cases: int, tool_cases: int, out: Path) -> dict[str, Any]:
    """API (`cases` chat bodies of each kind), policies (`cases`), tool schemas (`tool_cases`)."""
    reports: list[Report] = []
    os.environ["SHADOWSWITCH_ADMIN_TOKEN"] = TOKEN  # the admin routes are fuzzed too
    with tempfile.TemporaryDirectory() as work, StubUpstream() as stub:
        write_policies(Path(work) / "policies", stub.base_url)
        with running_proxy(Path(work)) as url:
            auth = {"Authorization": f"Bearer {TOKEN}"}
            reports.append(fuzz_api(url, cases, headers=auth))
            if tool_cases:
                reports.append(fuzz_tool_schemas(url, TOOLS_TASK, tool_cases, headers=auth))
    reports.append(fuzz_policies(cases))
    results = {
        "benchmark": "fuzz",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "git_commit": git_commit(),
        "machine": machine_info(),
        "what": {
            "api": "schemathesis over /openapi.json, valid and invalid inputs; failure = 5xx",
            "tool_schemas": "hypothesis tool schemas to a locally served task; failure = 5xx or engine error",
            "policies": "hypothesis-mangled policy files; failure = not PolicyError with file:line lines",
        },
        "total": {"cases": sum(r.tried for r in reports), "failures": sum(r.failed for r in reports)},
        **{r.name: r.json() for r in reports},
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
    return results
