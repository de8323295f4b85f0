"""The Rollout aggregate and its `rollout` row: one column per field, read and written whole.

A row is only ever written with `columns(rollout)`, the state an aggregate's method returned;
no code sets a column of its own.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from shadowswitch.rollouts.breaker import BreakerState
from shadowswitch.rollouts.rollout import PolicySeen, RampPosition, Rollout
from shadowswitch.store.tables import Rollout as RolloutRow


def columns(rollout: Rollout) -> dict[str, Any]:
    """The state as the row's columns."""
    b, r, p = rollout.breaker, rollout.ramp, rollout.policy
    return {
        "task_type": rollout.task_type,
        "mode": rollout.mode,
        "percent": rollout.percent,
        "breaker_state": b.state,
        "consecutive_failures": len(b.failures),
        "failure_ids": [{"id": i, "event": e} for i, e in b.failures] or None,
        "tripped_at": b.tripped_at,
        "reprobe_at": b.reprobe_at,
        "reprobe_wait_s": b.reprobe_wait_s,
        "half_open_successes": b.half_open_successes,
        "policy_mode": p.mode,
        "policy_percent": p.percent,
        "policy_ramp": p.ramp,
        "ramp_state": r.state,
        "ramp_since": r.since,
        "ramp_note": r.note,
        **({"updated_at": rollout.updated_at} if rollout.updated_at else {}),
    }


def aggregate(row: RolloutRow) -> Rollout:
    """A row read from the database as the aggregate."""
    failures = tuple(
        (str(f["id"]), str(f.get("event", "")))
        for f in row.failure_ids or []
        if isinstance(f, dict) and "id" in f
    )
    breaker = BreakerState(
        row.breaker_state,
        failures,
        as_utc(row.tripped_at),
        as_utc(row.reprobe_at),
        row.reprobe_wait_s,
        row.half_open_successes,
    )
    ramp = RampPosition(row.ramp_state, as_utc(row.ramp_since), row.ramp_note)
    policy = PolicySeen(row.policy_mode, row.policy_percent, row.policy_ramp)
    return Rollout(row.task_type, row.mode, row.percent, breaker, ramp, policy, as_utc(row.updated_at))


def as_row(rollout: Rollout) -> RolloutRow:
    """The aggregate as a row not (yet) written: a new task type's, or a replica's own view."""
    return RolloutRow(**columns(rollout))


def as_utc(value: datetime | None) -> datetime | None:
    """SQLite hands timezone-aware columns back naive; they were written in UTC."""
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=UTC)
