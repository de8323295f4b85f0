"""The ramp part of a rollout row and the audit events of its changes.

No session here: every caller holds the row's lock (RolloutStore, BreakerStore, RampStore), so a
ramp change is written in the same transaction as whatever caused it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from shadowswitch.errors import Conflict
from shadowswitch.policy.models import Ramp
from shadowswitch.rollouts.ramp import STOPPED, Check, command, next_step, steps_done
from shadowswitch.rollouts.states import AuditKind, Circuit, RampAction, RampOutcome, RampState, RolloutMode
from shadowswitch.store.tables import AuditEvent, Rollout

ACTOR = "ramp"
Setting = tuple[str | None, float | None]


def ramp_config(row: Rollout) -> Ramp:
    """The policy's ramp as last synced into the row; the defaults when the policy names none."""
    return Ramp.model_validate(row.policy_ramp) if row.policy_ramp else Ramp()


def position(mode: str | None, percent: float | None) -> str:
    return f"canary {percent or 0:g}%" if mode == RolloutMode.CANARY else str(mode)


def ramp_event(
    row: Rollout,
    at: datetime,
    actor: str,
    kind: str,
    reason: str | None,
    moved: tuple[Setting, Setting] | None = None,
    figures: dict[str, Any] | None = None,
) -> AuditEvent:
    """An audit event of the ramp; `moved` (old, new) only when the rollout itself changed."""
    old, new = moved or ((None, None), (None, None))
    return AuditEvent(
        at=at,
        task_type=row.task_type,
        actor=actor,
        kind=kind,
        old_mode=old[0],
        old_percent=old[1],
        new_mode=new[0],
        new_percent=new[1],
        reason=reason,
        figures=figures,
    )


def apply_command(row: Rollout, action: str, actor: str, reason: str | None, now: datetime) -> AuditEvent:
    """A person's start, pause, resume or abort; Conflict when it does not apply."""
    try:
        state = command(row.ramp_state, action)
    except ValueError as exc:
        raise Conflict(str(exc), param="action") from None
    if state != RampState.RUNNING:
        row.ramp_state, row.ramp_note = state, reason or f"{state} by {actor}"
        row.updated_at = now
        return ramp_event(row, now, actor, f"ramp_{action}", reason)
    return _run(row, action, actor, reason, now)


def _run(row: Rollout, action: str, actor: str, reason: str | None, now: datetime) -> AuditEvent:
    """Start or resume from where the rollout is: a fresh window at its current step."""
    steps = ramp_config(row).steps
    if row.breaker_state != Circuit.CLOSED:
        raise Conflict(
            f"the breaker is {row.breaker_state}: set the rollout (which closes it) before the ramp",
            param="action",
        )
    upcoming = next_step(steps, row.mode, row.percent)
    if upcoming is None:
        raise Conflict(f"already at {row.percent:g}%, the ramp's last step", param="action")
    moved = None
    if row.mode == RolloutMode.OFF:  # a ramp begins in shadow: both paths answer, nothing served locally yet
        moved = ((RolloutMode.OFF, row.percent), (RolloutMode.SHADOW, 0.0))
        row.mode, row.percent = RolloutMode.SHADOW, 0.0
    row.ramp_state, row.ramp_since, row.updated_at = RampState.RUNNING, now, now
    said = f"from {position(row.mode, row.percent)}, next {upcoming:g}% (steps {_steps(steps)})"
    row.ramp_note = reason
    return ramp_event(row, now, actor, f"ramp_{action}", f"{said}: {reason}" if reason else said, moved)


def pause_for_person(row: Rollout, actor: str, now: datetime) -> AuditEvent | None:
    """A person changed the rollout by hand: their word wins, the ramp waits for `resume`."""
    if row.ramp_state != RampState.RUNNING:
        return None
    row.ramp_state = RampState.PAUSED
    row.ramp_note = f"{actor} changed the rollout by hand; `rollout ramp {row.task_type} resume` goes on"
    return ramp_event(row, now, actor, AuditKind.RAMP_PAUSE, f"paused: {row.ramp_note}")


def abort_for_trip(row: Rollout, now: datetime, reason: str) -> AuditEvent | None:
    """The breaker tripped: the ramp ends, and does not come back when the breaker restores."""
    if row.ramp_state not in (RampState.RUNNING, *STOPPED):
        return None
    row.ramp_state = RampState.ABORTED
    row.ramp_note = f"the breaker tripped ({reason}); it does not resume when the breaker restores"
    return ramp_event(row, now, "breaker", AuditKind.RAMP_ABORT, f"aborted: {row.ramp_note}")


def start_from_policy(row: Rollout, now: datetime) -> AuditEvent | None:
    """A policy with a ramp starts it the first time it is seen (never over a person's choice)."""
    if row.ramp_state is not None or not row.policy_ramp:
        return None
    try:
        return _run(row, RampAction.START, "policy", "the policy has a ramp", now)
    except Conflict:
        return None  # already at the last step, or the breaker is not closed: nothing to ramp


def apply_check(row: Rollout, check: Check, now: datetime, on_fail: str) -> AuditEvent:
    """The controller's move: the next step, or hold/revert when the evidence says worse."""
    steps = ramp_config(row).steps
    old: Setting = (row.mode, row.percent)
    row.updated_at = now
    if check.outcome == RampOutcome.ADVANCE:
        target = next_step(steps, row.mode, row.percent)
        assert target is not None  # evaluated only while a step remains
        row.mode, row.percent, row.ramp_since = RolloutMode.CANARY, target, now
        last = next_step(steps, row.mode, row.percent) is None
        row.ramp_state = RampState.DONE if last else RampState.RUNNING
        said = f"{position(*old)} → {target:g}%{' (the last step: ramp done)' if last else ''}"
        row.ramp_note = f"{said}: {check.reason}"
        return ramp_event(
            row, now, ACTOR, AuditKind.RAMP_STEP, row.ramp_note, (old, (row.mode, target)), check.figures
        )
    if on_fail == "revert":
        row.mode, row.percent, row.ramp_state = RolloutMode.SHADOW, 0.0, RampState.REVERTED
        row.ramp_note = f"{check.reason}; `rollout ramp {row.task_type} resume` starts over from shadow"
        said = f"reverted from {position(*old)} to shadow: {check.reason}"
        return ramp_event(
            row, now, ACTOR, AuditKind.RAMP_REVERT, said, (old, (RolloutMode.SHADOW, 0.0)), check.figures
        )
    row.ramp_state = RampState.HELD
    row.ramp_note = f"{check.reason}; `rollout ramp {row.task_type} resume` judges the step afresh"
    said = f"held at {position(*old)}: {check.reason}"
    return ramp_event(row, now, ACTOR, AuditKind.RAMP_HOLD, said, figures=check.figures)


def ramp_json(row: Rollout, check: Check | None = None) -> dict[str, Any] | None:
    """The ramp as `rollouts` and `rollout status` show it; None when there never was one."""
    if row.ramp_state is None:
        return None
    steps = ramp_config(row).steps
    upcoming = next_step(steps, row.mode, row.percent) if row.ramp_state != RampState.DONE else None
    since = (
        row.ramp_since
        if row.ramp_since is None or row.ramp_since.tzinfo
        else row.ramp_since.replace(tzinfo=UTC)
    )
    data: dict[str, Any] = {
        "state": row.ramp_state,
        "steps": steps,
        "step": steps_done(steps, row.mode, row.percent),
        "next_percent": upcoming,
        "since": since.isoformat() if since else None,
        "note": row.ramp_note,
        "waiting": check.waiting if check else [],
        "figures": check.figures if check else None,
    }
    data["text"] = ramp_text(row, data)
    return data


def ramp_text(row: Rollout, data: dict[str, Any]) -> str:
    """One line: where the ramp is and what it waits for, or why it stopped."""
    where = f"step {data['step']} of {len(data['steps'])} ({position(row.mode, row.percent)})"
    if data["state"] == RampState.RUNNING:
        then = f", next {data['next_percent']:g}%" if data["next_percent"] is not None else ""
        waits = f" — waits for {'; '.join(data['waiting'])}" if data["waiting"] else ""
        return f"running: {where}{then}{waits}"
    if data["state"] == RampState.DONE:
        return f"done: {where}"
    return f"{data['state']}: {where}" + (f" — {data['note']}" if data["note"] else "")


def _steps(steps: list[float]) -> str:
    return ", ".join(f"{s:g}" for s in steps) + "%"
