"""The dashboard's chart data over a window: pure functions of decision and audit rows."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from shadowswitch.dashboard.series import rollout_history
from shadowswitch.store.tables import AuditEvent

NOW = datetime(2026, 12, 5, 15, 0, tzinfo=UTC)


def event(minutes_ago: float, kind: str, mode: str | None, percent: float | None) -> AuditEvent:
    return AuditEvent(
        at=NOW - timedelta(minutes=minutes_ago),
        task_type="travel",
        actor="cli:ann",
        kind=kind,
        new_mode=mode,
        new_percent=percent,
    )


def test_the_local_percentage_starts_where_the_window_opens() -> None:
    events = [
        event(120, "seed", "off", 0),
        event(90, "set", "canary", 25),
        event(10, "set", "canary", 100),
        event(5, "trip", "off", 0),
    ]
    since = NOW - timedelta(minutes=30)
    history = rollout_history(events, since)
    assert history["t"][0] == since.timestamp() and history["percent"] == [25, 100, 0]
    assert [m["kind"] for m in history["marks"]] == ["set", "trip"]  # only the window's changes
    whole = rollout_history(events, NOW - timedelta(hours=3))
    assert whole["percent"] == [0, 25, 100, 0] and whole["t"][0] == events[0].at.timestamp()
