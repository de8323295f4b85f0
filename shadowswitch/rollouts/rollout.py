"""A task type's Rollout, the aggregate: its mode and percent, its breaker and its ramp as one value.

Every change of a rollout is a method here, pure, the clock passed in: `sync` (the policy file),
`set` (a person), `command` (a person's ramp start, pause, resume or abort), `record` and
`reprobe` (the breaker's outcomes and its wait), `tick` (the ramp's evidence). Each returns a
`Changed`: the new state and the audit events that say what and why. The rules that cross the
parts are here too, in one machine: a person's word closes the breaker and pauses the ramp, a
trip aborts the ramp, and the ramp moves only while the breaker is closed.
`rollouts/store/repository.py` locks the row, calls one method and writes both in one transaction.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from shadowswitch.errors import Conflict, Unprocessable
from shadowswitch.policy.models import Breaker, Ramp
from shadowswitch.policy.models import Rollout as RolloutPolicy
from shadowswitch.rollouts.breaker import (
    BreakerState,
    Step,
    counts_as,
    on_failure,
    on_success,
    on_tick,
    reset,
)
from shadowswitch.rollouts.ramp import (
    STOPPED,
    Check,
    StepEvidence,
    command,
    elapsed_s,
    evaluate,
    next_step,
    position,
    steps_text,
)
from shadowswitch.rollouts.routing import RolloutView
from shadowswitch.states import (
    AuditKind,
    BreakerTransition,
    Circuit,
    RampAction,
    RampOutcome,
    RampState,
    RolloutMode,
)

MODES = tuple(RolloutMode)
Setting = tuple[str | None, float | None]  # (mode, percent) as the audit log shows it
UNMOVED: Setting = (None, None)  # an event that moved nothing (most of the ramp's)
RAMP, BREAKER = "ramp", "breaker"  # the actors of the automatic moves


@dataclass(frozen=True)
class Event:
    """One audit event: who did what, when and why; `old` → `new` when the rollout moved."""

    kind: str  # an AuditKind
    actor: str  # cli:<user>, api:<token name>, policy, breaker, ramp
    at: datetime
    reason: str | None
    old: Setting = UNMOVED
    new: Setting = UNMOVED
    decision_ids: tuple[str, ...] = ()  # the decisions that tripped the breaker
    figures: dict[str, Any] | None = None  # the evidence a ramp step acted on


@dataclass(frozen=True)
class RampPosition:
    state: str | None = None  # a RampState; None: never ramped
    since: datetime | None = None  # the current step began
    note: str | None = None  # why it stopped, or its last move


@dataclass(frozen=True)
class PolicySeen:
    """The policy file's `rollout` as last synced: a change of it is applied once."""

    mode: str | None = None
    percent: float | None = None
    ramp: dict[str, Any] | None = None


@dataclass(frozen=True)
class Rollout:
    """The live state of one task type, shared by every replica through its row."""

    task_type: str
    mode: str = RolloutMode.OFF
    percent: float = 0.0
    breaker: BreakerState = field(default_factory=BreakerState)
    ramp: RampPosition = field(default_factory=RampPosition)
    policy: PolicySeen = field(default_factory=PolicySeen)
    updated_at: datetime | None = None

    @property
    def setting(self) -> Setting:
        return (self.mode, self.percent)

    @property
    def ramp_config(self) -> Ramp:
        """The policy's ramp as last synced; the defaults when the policy names none."""
        return Ramp.model_validate(self.policy.ramp) if self.policy.ramp else Ramp()

    # -- a person and the policy file ------------------------------------------------------------

    @classmethod
    def seed(cls, task_type: str, policy: RolloutPolicy, now: datetime) -> Changed:
        """A task type seen for the first time: its policy's rollout, and its ramp if it has one."""
        first = cls(task_type, policy.mode, policy.percent)
        seeded = Event(AuditKind.SEED, "policy", now, "first start", UNMOVED, first.setting)
        return first._synced(policy, now, (seeded,))

    def sync(self, policy: RolloutPolicy, now: datetime) -> Changed:
        """A changed policy `rollout` is an audited change, as a person's; unchanged: nothing."""
        wanted = (policy.mode, policy.percent)
        ramp = policy.ramp.model_dump() if policy.ramp else None
        if (self.policy.mode, self.policy.percent) != wanted:
            said = f"policy file changed rollout to {wanted[0]} {wanted[1]:g}%"
            moved = replace(self, mode=wanted[0], percent=wanted[1])
            changed = moved._by_person("policy", AuditKind.POLICY, said, now, self.setting)
            return changed.rollout._synced(policy, now, changed.events)
        if self.policy.ramp == ramp:
            return Changed(self)
        return self._synced(policy, now)

    def set(
        self,
        actor: str,
        now: datetime,
        mode: str | None = None,
        percent: float | None = None,
        reason: str | None = None,
    ) -> Changed:
        """A person's change: new mode and/or percent, audited; it closes the breaker, pauses the ramp."""
        _check(mode, percent)
        if percent is not None and mode is None and self.mode == RolloutMode.OFF and percent > 0:
            mode = RolloutMode.CANARY  # asking for a share served locally means canary
        moved = replace(
            self,
            mode=self.mode if mode is None else mode,
            percent=self.percent if percent is None else percent,
        )
        return moved._by_person(actor, AuditKind.SET, reason, now, self.setting)

    def command(self, action: str, actor: str, now: datetime, reason: str | None = None) -> Changed:
        """A person's start, pause, resume or abort of the ramp; Conflict when it does not apply."""
        try:
            state = command(self.ramp.state, action)
        except ValueError as exc:
            raise Conflict(str(exc), param="action") from None
        if state == RampState.RUNNING:
            return self._run(action, actor, reason, now)
        stopped = replace(self, ramp=replace(self.ramp, state=state, note=reason or f"{state} by {actor}"))
        return Changed(replace(stopped, updated_at=now), (Event(f"ramp_{action}", actor, now, reason),))

    def _by_person(self, actor: str, kind: str, reason: str | None, now: datetime, old: Setting) -> Changed:
        """A person's (or the policy file's) setting: the breaker closes, a running ramp waits."""
        was = self.breaker.state
        if was != Circuit.CLOSED:
            note = f"closes the {was.replace('_', '-')} breaker"
            reason = f"{reason} ({note})" if reason else note
        closed = replace(self, breaker=reset(), updated_at=now)
        event = Event(kind, actor, now, reason, old, self.setting)
        if self.ramp.state != RampState.RUNNING:
            return Changed(closed, (event,))
        note = f"{actor} changed the rollout by hand; `rollout ramp {self.task_type} resume` goes on"
        paused = replace(closed, ramp=replace(self.ramp, state=RampState.PAUSED, note=note))
        return Changed(paused, (event, Event(AuditKind.RAMP_PAUSE, actor, now, f"paused: {note}")))

    def _synced(self, policy: RolloutPolicy, now: datetime, events: tuple[Event, ...] = ()) -> Changed:
        """Remember the policy as seen; a policy with a ramp starts it the first time it is seen."""
        ramp = policy.ramp.model_dump() if policy.ramp else None
        seen = replace(self, policy=PolicySeen(policy.mode, policy.percent, ramp), updated_at=now)
        if seen.ramp.state is not None or not ramp:
            return Changed(seen, events)
        try:
            started = seen._run(RampAction.START, "policy", "the policy has a ramp", now)
        except Conflict:
            return Changed(seen, events)  # already at the last step, or the breaker is not closed
        return Changed(started.rollout, events + started.events)

    # -- the ramp -----------------------------------------------------------------------------------

    def _run(self, action: str, actor: str, reason: str | None, now: datetime) -> Changed:
        """Start or resume from where the rollout is: a fresh window at its current step."""
        steps = self.ramp_config.steps
        if self.breaker.state != Circuit.CLOSED:
            raise Conflict(
                f"the breaker is {self.breaker.state}: set the rollout (which closes it) before the ramp",
                param="action",
            )
        upcoming = next_step(steps, self.mode, self.percent)
        if upcoming is None:
            raise Conflict(f"already at {self.percent:g}%, the ramp's last step", param="action")
        at, moved = self, (UNMOVED, UNMOVED)
        if self.mode == RolloutMode.OFF:  # a ramp begins in shadow: both paths answer, none served locally
            at = replace(self, mode=RolloutMode.SHADOW, percent=0.0)
            moved = (self.setting, at.setting)
        running = replace(at, ramp=RampPosition(RampState.RUNNING, now, reason), updated_at=now)
        said = f"from {position(*at.setting)}, next {upcoming:g}% (steps {steps_text(steps)})"
        said = f"{said}: {reason}" if reason else said
        return Changed(running, (Event(f"ramp_{action}", actor, now, said, *moved),))

    def check(self, evidence: StepEvidence, now: datetime) -> Check | None:
        """What the controller makes of a running ramp's step; None when it is not running."""
        if self.ramp.state != RampState.RUNNING or self.ramp.since is None:
            return None
        return evaluate(self.ramp_config, evidence, elapsed_s(now, self.ramp.since))

    def tick(self, evidence: StepEvidence, now: datetime) -> Changed:
        """The ramp's move on its step's evidence: the next step, or hold/revert when it says worse."""
        check = self.check(evidence, now) if self.breaker.state == Circuit.CLOSED else None
        if check is None or check.outcome == RampOutcome.WAIT:
            return Changed(self)  # the breaker acts first; a trip aborts the ramp
        old, steps, task = self.setting, self.ramp_config.steps, self.task_type
        if check.outcome == RampOutcome.ADVANCE:
            target = next_step(steps, self.mode, self.percent)
            assert target is not None  # evaluated only while a step remains
            last = next_step(steps, RolloutMode.CANARY, target) is None
            said = f"{position(*old)} → {target:g}%{' (the last step: ramp done)' if last else ''}"
            ramp = RampPosition(RampState.DONE if last else RampState.RUNNING, now, f"{said}: {check.reason}")
            moved = replace(self, mode=RolloutMode.CANARY, percent=target, ramp=ramp, updated_at=now)
            step = Event(AuditKind.RAMP_STEP, RAMP, now, ramp.note, old, moved.setting, figures=check.figures)
            return Changed(moved, (step,))
        if self.ramp_config.on_fail == "revert":
            note = f"{check.reason}; `rollout ramp {task} resume` starts over from shadow"
            ramp = replace(self.ramp, state=RampState.REVERTED, note=note)
            moved = replace(self, mode=RolloutMode.SHADOW, percent=0.0, ramp=ramp, updated_at=now)
            said = f"reverted from {position(*old)} to shadow: {check.reason}"
            return Changed(
                moved,
                (Event(AuditKind.RAMP_REVERT, RAMP, now, said, old, moved.setting, figures=check.figures),),
            )
        note = f"{check.reason}; `rollout ramp {task} resume` judges the step afresh"
        held = replace(self, ramp=replace(self.ramp, state=RampState.HELD, note=note), updated_at=now)
        said = f"held at {position(*old)}: {check.reason}"
        return Changed(held, (Event(AuditKind.RAMP_HOLD, RAMP, now, said, figures=check.figures),))

    # -- the breaker --------------------------------------------------------------------------------

    def record(self, config: Breaker, decision_id: str, event: str, now: datetime) -> Changed:
        """One local-path outcome (see breaker.counts_as): count it; it may trip or restore."""
        counted = counts_as(event, config)
        if counted is None:
            return Changed(self)
        if counted:
            return self._breaker(config, now, on_success(self.breaker, config))
        return self._breaker(config, now, on_failure(self.breaker, config, decision_id, event, now))

    def reprobe(self, config: Breaker, now: datetime) -> Changed:
        """Start re-probing when the open breaker's wait is over."""
        return self._breaker(config, now, on_tick(self.breaker, now))

    def _breaker(self, config: Breaker, now: datetime, step: Step) -> Changed:
        """The breaker's step on this rollout: audited when it moved; a trip aborts the ramp."""
        if step.state == self.breaker:
            return Changed(self)
        after = replace(self, breaker=step.state, updated_at=now)
        if step.transition is None:
            return Changed(after)
        ids = tuple(step.state.decision_ids) if step.transition == BreakerTransition.TRIP else ()
        old, new = (self.mode, self.local_percent(config)), (after.mode, after.local_percent(config))
        moved = Event(step.transition, BREAKER, now, step.reason, old, new, ids)
        if step.transition != BreakerTransition.TRIP or self.ramp.state not in (RampState.RUNNING, *STOPPED):
            return Changed(after, (moved,))
        # in the trip's transaction: no replica can step the ramp after it
        note = f"the breaker tripped ({step.reason}); it does not resume when the breaker restores"
        aborted = replace(after, ramp=replace(self.ramp, state=RampState.ABORTED, note=note))
        return Changed(aborted, (moved, Event(AuditKind.RAMP_ABORT, BREAKER, now, f"aborted: {note}")))

    def local_percent(self, config: Breaker) -> float:
        """What the audit log shows: the share served locally, the breaker taken into account."""
        view = RolloutView(self.mode, self.percent, self.breaker.state, config.reprobe_percent)
        return view.local_percent


@dataclass(frozen=True)
class Changed:
    """A method's result: the new state, and the audit events to write with it (none: no change)."""

    rollout: Rollout
    events: tuple[Event, ...] = ()


def _check(mode: str | None, percent: float | None) -> None:
    if mode is None and percent is None:
        raise Unprocessable("give 'mode', 'percent' or both", param="mode")
    if mode is not None and mode not in MODES:
        raise Unprocessable(f"mode must be one of {', '.join(MODES)}", param="mode")
    if percent is not None and not 0 <= percent <= 100:  # also refuses NaN
        raise Unprocessable("percent must be between 0 and 100", param="percent")
