"""Print BFCL results as rich tables: one overall, one per category."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table


def pct(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.1f}%"


def ms(p50: float | None, p95: float | None) -> str:
    return "–" if p50 is None else f"{p50:,.0f} / {p95:,.0f}"


def missing(figures: dict[str, Any]) -> str:
    """The share (and count) of cases handed to the upstream for a required value not in the text."""
    rate = figures.get("missing_value_rate")
    return "–" if rate is None else f"{pct(rate)} ({figures.get('missing_value_cases', 0)})"


def times(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}×"


def overall_table(summary: dict[str, Any]) -> Table:
    table = Table(title="BFCL: choose (local engine via proxy) vs generate (same 135M model)")
    for column in (
        "system",
        "name acc",
        "AST acc",
        "missing value",
        "no-tool acc",
        "valid",
        "fallback",
        "choice ms p50/p95",
        "call ms p50/p95",
        "× vs free",
        "× vs grammar",
    ):
        table.add_column(column, justify="left" if column == "system" else "right")
    for name, figures in summary.items():
        o = figures["overall"]
        table.add_row(
            name,
            pct(o["name_acc"]),
            pct(o["ast_acc"]),
            missing(o),
            pct(o["no_tool_acc"]),
            pct(o["valid_rate"]),
            pct(o["fallback_rate"]),
            ms(o["choice_p50_ms"], o["choice_p95_ms"]),
            ms(o["call_p50_ms"], o["call_p95_ms"]),
            times(o.get("speedup_vs_free-json")),
            times(o.get("speedup_vs_grammar")),
        )
    return table


def category_table(summary: dict[str, Any]) -> Table:
    """AST accuracy per category (no-tool accuracy for irrelevance, any call for relevance)."""
    categories = sorted({c for s in summary.values() for c in s["by_category"]})
    title = "Accuracy per category (name / AST; irrelevance: correct no-tool; mv: missing-value abstains)"
    table = Table(title=title)
    table.add_column("system")
    for category in categories:
        table.add_column(category, justify="right")
    for name, figures in summary.items():
        cells = []
        for category in categories:
            c = figures["by_category"].get(category)
            if c is None:
                cells.append("–")
            elif "relevance" in category:
                cells.append(pct(c["overall_acc"]) + _missing_note(c))
            else:
                cells.append(f"{pct(c['name_acc'])} / {pct(c['ast_acc'])}" + _missing_note(c))
        table.add_row(name, *cells)
    return table


def _missing_note(figures: dict[str, Any]) -> str:
    count = figures.get("missing_value_cases") or 0
    return f" (mv {count})" if count else ""


def print_tables(results: dict[str, Any], console: Console) -> None:
    console.print(overall_table(results["summary"]))
    console.print(category_table(results["summary"]))
    for system, hits in results.get("stub_upstream_hits", {}).items():
        console.print(f"stub upstream hits during {system} (fallbacks + no-tool texts): {hits}")
