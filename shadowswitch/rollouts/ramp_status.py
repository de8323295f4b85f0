"""The ramp as `rollouts`, `rollout status`, the report and the dashboard show it."""

from __future__ import annotations

from typing import Any

from shadowswitch.rollouts.ramp import Check, next_step, position, steps_done
from shadowswitch.rollouts.rollout import Rollout
from shadowswitch.states import RampState


def ramp_json(rollout: Rollout, check: Check | None = None) -> dict[str, Any] | None:
    """The ramp's position and what a running one waits for; None when there never was one."""
    ramp = rollout.ramp
    if ramp.state is None:
        return None
    steps = rollout.ramp_config.steps
    upcoming = next_step(steps, rollout.mode, rollout.percent) if ramp.state != RampState.DONE else None
    data: dict[str, Any] = {
        "state": ramp.state,
        "steps": steps,
        "step": steps_done(steps, rollout.mode, rollout.percent),
        "next_percent": upcoming,
        "since": ramp.since.isoformat() if ramp.since else None,
        "note": ramp.note,
        "waiting": check.waiting if check else [],
        "figures": check.figures if check else None,
    }
    data["text"] = ramp_text(rollout, data)
    return data


def ramp_text(rollout: Rollout, data: dict[str, Any]) -> str:
    """One line: where the ramp is and what it waits for, or why it stopped."""
    where = f"step {data['step']} of {len(data['steps'])} ({position(rollout.mode, rollout.percent)})"
    if data["state"] == RampState.RUNNING:
        then = f", next {data['next_percent']:g}%" if data["next_percent"] is not None else ""
        waits = f" — waits for {'; '.join(data['waiting'])}" if data["waiting"] else ""
        return f"running: {where}{then}{waits}"
    if data["state"] == RampState.DONE:
        return f"done: {where}"
    return f"{data['state']}: {where}" + (f" — {data['note']}" if data["note"] else "")
