"""The BFCL lab counts the cases the engine handed to the upstream for a value not in the text."""

from __future__ import annotations

from rich.console import Console

from bench.bfcl.outcome import FIELDS, Outcome, from_compact, summarise
from bench.bfcl.table import category_table, overall_table


def outcome(cat: str, ok: bool, path: str = "local", abstain: str | None = None) -> Outcome:
    return Outcome(f"{cat}_1", cat, ok, ok, True, "f", 5.0, 10.0, path, abstain=abstain)


def test_missing_value_abstains_are_counted_beside_full_call_accuracy() -> None:
    outs = [
        outcome("simple_python", True),
        outcome("simple_python", False, "fallback", "missing_value:city"),
        outcome("simple_python", False, "fallback", "low_confidence 0.20 < 0.5"),
        outcome("irrelevance", True, "fallback", "missing_value:x"),
    ]
    summary = summarise(outs)
    assert summary["missing_value_cases"] == 2 and summary["missing_value_rate"] == 0.5
    assert summary["ast_acc"] == round(1 / 3, 4)
    direct = [outcome("simple_python", True, "direct")]
    assert summarise(direct)["missing_value_rate"] is None  # a baseline never asks the engine


def test_the_reason_round_trips_and_older_rows_read_without_it() -> None:
    row = outcome("multiple", False, "fallback", "missing_value:date").compact()
    assert len(row) == len(FIELDS) and from_compact(row).abstain == "missing_value:date"
    assert from_compact(row[:-1]).abstain is None  # a results file from before this field


def test_the_tables_show_the_missing_value_share() -> None:
    outs = [outcome("simple_python", True), outcome("simple_python", False, "fallback", "missing_value:a")]
    summary = {
        "local/hybrid": {"overall": summarise(outs), "by_category": {"simple_python": summarise(outs)}}
    }
    console = Console(width=250, record=True)
    console.print(overall_table(summary))
    console.print(category_table(summary))
    text = console.export_text()
    assert "missing value" in text and "50.0% (1)" in text and "(mv 1)" in text
