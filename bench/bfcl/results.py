"""The BFCL results file: machine, date, commit, per-system summaries and compact per-case rows."""

from __future__ import annotations

import json
import os
import platform
import subprocess
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from bench.bfcl.data import BfclCase
from bench.bfcl.outcome import FIELDS, Outcome, from_compact, summarise

BASELINES = ("generate/free-json", "generate/grammar")


def machine_info() -> dict[str, Any]:
    """Where the figures come from: cores, load, versions (torch read without importing it)."""

    def version(package: str) -> str | None:
        try:
            return metadata.version(package)
        except metadata.PackageNotFoundError:
            return None

    return {
        "cores": os.cpu_count(),
        "torch_threads": os.environ.get("OMP_NUM_THREADS"),
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "python": platform.python_version(),
        "torch": version("torch"),
        "transformers": version("transformers"),
        "xgrammar": version("xgrammar"),
        "bfcl_eval": version("bfcl-eval"),
    }


def shown_path(path: Path) -> str:
    """A path as a results file may keep it: relative to the working directory when inside it,
    else the file's name alone (a temp dir or a home directory is the machine's, not the result's)."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return path.name


def git_commit(checkout: Path | None = None) -> str | None:
    """HEAD's commit (with "+dirty" when the tree has changes other than the results files,
    which a run rewrites as it goes), None outside a repository; of `checkout` if given, else
    of the working directory's."""

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], capture_output=True, text=True, check=True, cwd=checkout).stdout

    try:
        head = git("rev-parse", "HEAD").strip()
        changes = git("status", "--porcelain", "--", ":/", ":(top,exclude)bench/results")
        return head + ("+dirty" if changes.strip() else "")
    except (OSError, subprocess.CalledProcessError):
        return None


def speedups(summaries: dict[str, dict[str, Any]]) -> None:
    """Add, to every system, how many times faster its p50 call is than each baseline's."""
    for summary in summaries.values():
        overall = summary["overall"]
        for base in BASELINES:
            theirs = summaries.get(base, {}).get("overall", {}).get("call_p50_ms")
            ours = overall.get("call_p50_ms")
            overall[f"speedup_vs_{base.split('/')[1]}"] = round(theirs / ours, 2) if theirs and ours else None


def summarise_system(outcomes: list[Outcome]) -> dict[str, Any]:
    """Overall figures and the same per category."""
    categories = sorted({o.category for o in outcomes})
    per_category = {c: summarise([o for o in outcomes if o.category == c]) for c in categories}
    return {"overall": summarise(outcomes), "by_category": per_category}


def build_results(
    config: Any, cases: list[BfclCase], systems: dict[str, list[Outcome]], extras: dict[str, Any]
) -> dict[str, Any]:
    """The whole results document."""
    summaries = {name: summarise_system(outs) for name, outs in systems.items()}
    speedups(summaries)
    return {
        "benchmark": "bfcl",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "git_commit": git_commit(),
        "machine": machine_info(),
        "config": {
            "categories": config.categories,
            "limit": config.limit,
            "sample": "even stride over each file",
            "scorers": config.scorers,
            "abstain_scorers": config.abstain_scorers,
            "max_new_tokens": config.max_new_tokens,
            "cases": len(cases),
        },
        **extras,
        "summary": summaries,
        "case_fields": FIELDS,
        "cases": {name: [o.compact() for o in outs] for name, outs in systems.items()},
    }


def write_results(path: Path, results: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=1) + "\n")


def load_previous(path: Path) -> dict[str, list[Outcome]]:
    """Per-case outcomes of an earlier results file, to merge systems not measured again."""
    if not path.exists():
        return {}
    data = json.loads(path.read_text())
    return {name: [from_compact(row) for row in rows] for name, rows in data["cases"].items()}
