"""Every request recorded once: the decision ids the proxy answered with, against the rows."""

from __future__ import annotations

from collections import Counter
from typing import Any

from sqlalchemy import create_engine, text

from bench.load.traffic import Result


def check_records(db_url: str, results: list[Result]) -> dict[str, Any]:
    """Rows by decision id: answered but missing, answered twice, rows no request answered with."""
    answered = Counter(r.decision_id for r in results if r.decision_id)
    engine = create_engine(db_url)
    try:
        with engine.connect() as connection:
            rows = Counter(row[0] for row in connection.execute(text("SELECT id FROM decision")))
    finally:
        engine.dispose()
    return {
        "requests": len(results),
        "answered_with_id": sum(answered.values()),
        "rows": sum(rows.values()),
        "missing": sum(1 for d in answered if d not in rows),
        "duplicated": sum(1 for d, n in rows.items() if n > 1) + sum(1 for d, n in answered.items() if n > 1),
        "unexpected_rows": sum(1 for d in rows if d not in answered),
    }
