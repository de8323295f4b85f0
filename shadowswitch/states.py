"""The names every domain shares: rollout modes, breaker and ramp states, events and decision paths,
one enum each.

Each is a `StrEnum`, so a member is the very string stored in the database and sent on the wire;
rows read back hold plain strings, which compare equal to the members.
"""

from __future__ import annotations

from enum import StrEnum


class RolloutMode(StrEnum):
    """Who answers a task type: the generative path only, both (shadow), or a local share."""

    OFF = "off"
    SHADOW = "shadow"
    CANARY = "canary"


class Route(StrEnum):
    """Where the rollout sends one request (before any fallback)."""

    GENERATIVE = "generative"
    LOCAL = "local"
    SHADOW = "shadow"


class DecisionPath(StrEnum):
    """Which path actually answered a request, as recorded on its decision."""

    LOCAL = "local"
    GENERATIVE = "generative"
    FALLBACK = "fallback"


class Circuit(StrEnum):
    """The breaker's position: closed serves locally, open reverts, half_open re-probes."""

    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


class BreakerTransition(StrEnum):
    """A move of the breaker, and the audit event it writes."""

    TRIP = "trip"
    REPROBE = "reprobe"
    RESTORE = "restore"


class RampState(StrEnum):
    RUNNING = "running"
    PAUSED = "paused"
    HELD = "held"
    REVERTED = "reverted"
    ABORTED = "aborted"
    DONE = "done"


class RampAction(StrEnum):
    """What a person (or a policy) may do to a ramp."""

    START = "start"
    PAUSE = "pause"
    RESUME = "resume"
    ABORT = "abort"


class RampOutcome(StrEnum):
    """The ramp controller's reading of one step's evidence."""

    ADVANCE = "advance"
    WAIT = "wait"
    FAIL = "fail"


class AuditKind(StrEnum):
    """The kind of a rollout audit event."""

    SEED = "seed"
    SET = "set"
    POLICY = "policy"
    TRIP = "trip"
    REPROBE = "reprobe"
    RESTORE = "restore"
    RAMP_START = "ramp_start"
    RAMP_PAUSE = "ramp_pause"
    RAMP_RESUME = "ramp_resume"
    RAMP_ABORT = "ramp_abort"
    RAMP_STEP = "ramp_step"
    RAMP_HOLD = "ramp_hold"
    RAMP_REVERT = "ramp_revert"
