"""The API's response models give the JSON the routes gave as plain dicts: same keys, same order."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from shadowswitch.api.responses import AuditEventOut, ListedRollout, RolloutOut
from shadowswitch.rollouts.states import AuditKind, Circuit, RolloutMode
from shadowswitch.store.tables import AuditEvent, Rollout

AT = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def test_a_rollout_keeps_its_wire_shape() -> None:
    row = Rollout(task_type="pick", mode=RolloutMode.CANARY, percent=25.0, updated_at=AT)
    row.breaker_state, row.tripped_at = Circuit.OPEN, AT
    body = json.loads(RolloutOut.of(row).model_dump_json())
    assert list(body) == ["task_type", "mode", "percent", "breaker", "updated_at", "ramp"]
    assert body["mode"] == "canary" and body["percent"] == 25.0 and body["ramp"] is None
    assert body["breaker"] == {
        "state": "open",
        "consecutive_failures": 0,
        "tripped_at": AT.isoformat(),
        "reprobe_at": None,
        "reprobe_wait_s": None,
        "half_open_successes": 0,
        "failure_ids": [],
    }
    listed = ListedRollout(**dict(RolloutOut.of(row)), configured=False).model_dump(mode="json")
    assert list(listed)[-1] == "configured" and listed["configured"] is False


def test_an_audit_event_keeps_its_wire_shape() -> None:
    event = AuditEvent(
        id=7, at=AT, task_type="pick", actor="cli:ana", kind=AuditKind.SET, old_mode="off", old_percent=0.0
    )
    event.new_mode, event.new_percent, event.reason = "canary", 5.0, "go"
    body = json.loads(AuditEventOut.of(event).model_dump_json())
    assert body == {
        "id": 7,
        "at": AT.isoformat(),
        "task_type": "pick",
        "actor": "cli:ana",
        "kind": "set",
        "old": {"mode": "off", "percent": 0.0},
        "new": {"mode": "canary", "percent": 5.0},
        "reason": "go",
        "decision_ids": [],
        "figures": None,
    }
