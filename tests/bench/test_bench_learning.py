"""The learning bench's parts that need no proxy: its traffic, how it judges a test request and
names what a miss was, and that its command is reachable as `python -m bench.cli learning`."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from bench.bfcl.data import BfclCase
from bench.learning_curve import expected_answer, judge, keep_database, traffic


def with_optional(stream: list[BfclCase]) -> BfclCase:
    """A stream case whose expected call sets an optional parameter (one not required)."""
    for case in stream:
        answer = expected_answer(case)
        tool = next((t for t in case.tools if t["function"]["name"] == answer.get("name")), None)
        if tool is None:
            continue
        required = set(tool["function"]["parameters"].get("required") or [])
        if set(answer["arguments"]) - required:
            return case
    raise AssertionError("no case sets an optional parameter")


def decision(name: str, arguments: dict[str, Any], sources: str = "text") -> dict[str, Any]:
    return {
        "path": "local",
        "chosen": name,
        "arguments": arguments,
        "argument_sources": {k: {"source": sources} for k in arguments},
        "timings_ms": {"candidates": 1.0, "scoring": 2.0},
    }


def test_the_bench_names_what_each_miss_was() -> None:
    stream, test = traffic()
    assert len(stream) > 3 * len(test) // 2 and test
    names = {case.id for case in stream} & {case.id for case in test}
    assert not names  # no test request is ever in the shadow stream
    case = with_optional(stream)
    answer = expected_answer(case)
    right = judge(case, decision(answer["name"], answer["arguments"]))
    assert right["served"] and right["agree"] and right["why"] is None and right["choice_ms"] == 3.0
    tool = next(t for t in case.tools if t["function"]["name"] == answer["name"])
    required = set(tool["function"]["parameters"].get("required") or [])
    short = {k: v for k, v in answer["arguments"].items() if k in required}
    left_out = judge(case, decision(answer["name"], short))
    assert not left_out["agree"] and "optional parameter" in left_out["why"]
    assert judge(case, decision("__no_tool__", {}))["why"] == "no tool where a call was due"
    invented = judge(case, decision(answer["name"], answer["arguments"], sources="guessed"))
    assert invented["invented"] == len(answer["arguments"])
    fell_back = judge(
        case, {"path": "fallback", "chosen": answer["name"], "abstain_reason": "missing_value:city"}
    )
    assert not fell_back["served"] and fell_back["why"] == "missing_value"


@pytest.mark.integration  # a process of its own
def test_the_learning_command_is_registered_for_python_dash_m() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "bench.cli", "learning", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert "--quick" in run.stdout


def test_the_kept_database_has_the_writes_still_in_its_wal(tmp_path: Path) -> None:
    source, kept = tmp_path / "bench.db", tmp_path / "kept.db"
    with closing(sqlite3.connect(source)) as live:
        live.execute("PRAGMA journal_mode=WAL")
        live.execute("PRAGMA wal_autocheckpoint=0")  # the writes stay in the WAL, as a live proxy's may
        live.execute("CREATE TABLE engine_state (version INTEGER)")
        live.execute("INSERT INTO engine_state VALUES (1)")
        live.commit()
        keep_database(source, kept)
    with closing(sqlite3.connect(kept)) as copy:
        assert copy.execute("SELECT version FROM engine_state").fetchall() == [(1,)]
