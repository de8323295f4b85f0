"""Prometheus metrics, on a registry per app so that several apps can live in one process."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from shadowswitch.analysis.report import reason_kind
from shadowswitch.states import BreakerTransition, Circuit, RolloutMode
from shadowswitch.store.tables import Decision, Rollout

BREAKER_STATES = tuple(Circuit)
BREAKER_EVENTS = tuple(BreakerTransition)
MODES = tuple(RolloutMode)
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "shadowswitch_requests",
            "Chat completions by task type, path and status",
            ["task_type", "path", "status"],
            registry=self.registry,
        )
        self.key_requests = Counter(
            "shadowswitch_key_requests",
            "Chat completions by agent key (its name), task type and path",
            ["key", "task_type", "path"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "shadowswitch_request_latency_seconds",
            "Time to answer (whole stream for streams)",
            ["task_type", "path"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.invalid = Counter(
            "shadowswitch_invalid_outputs",
            "Answers that did not fit the request",
            ["task_type", "path"],
            registry=self.registry,
        )
        self.breaker_events = Counter(
            "shadowswitch_breaker_events",
            "Breaker transitions made by this replica: trip, reprobe, restore",
            ["task_type", "event"],
            registry=self.registry,
        )
        self.breaker_state = Gauge(
            "shadowswitch_breaker_state",
            "1 for a task type's current breaker state (closed, open, half_open), 0 for the others",
            ["task_type", "state"],
            registry=self.registry,
        )
        self.breaker_failures = Gauge(
            "shadowswitch_breaker_consecutive_failures",
            "Local-path failures in a row so far",
            ["task_type"],
            registry=self.registry,
        )
        self.rollout_mode = Gauge(
            "shadowswitch_rollout_mode",
            "1 for a task type's current mode (off, shadow, canary), 0 for the others",
            ["task_type", "mode"],
            registry=self.registry,
        )
        self.rollout_percent = Gauge(
            "shadowswitch_rollout_percent",
            "Share of sticky keys the rollout asks to serve locally",
            ["task_type"],
            registry=self.registry,
        )

        self.abstains = Counter(
            "shadowswitch_abstains",
            "Local decisions handed to the generative path, by reason (missing_value, low_confidence...)",
            ["task_type", "reason"],
            registry=self.registry,
        )
        self.pairs = Counter(
            "shadowswitch_pairs",
            "Requests both paths answered (shadow runs, canary comparisons), by agreement level",
            ["task_type", "level", "agree"],
            registry=self.registry,
        )
        self.comparisons_skipped = Counter(
            "shadowswitch_comparisons_skipped",
            "Shadow or comparison runs skipped because too many were in flight",
            ["task_type"],
            registry=self.registry,
        )
        self.background_in_flight = Gauge(
            "shadowswitch_background_in_flight",
            "Background work in flight: shadow and comparison runs, learning's pairs, breaker events",
            registry=self.registry,
        )
        self.learning_runs = Counter(
            "shadowswitch_learning_runs",
            "Learning runs of this replica's learner, by outcome (locked, already_judged: skipped)",
            ["task_type", "outcome"],
            registry=self.registry,
        )
        self.learned_version = Gauge(
            "shadowswitch_learned_version",
            "The learned state version this replica serves, by task type (0: none, the prior)",
            ["task_type"],
            registry=self.registry,
        )
        self.certificates_withdrawn = Counter(
            "shadowswitch_certificates_withdrawn",
            "Served states withdrawn by the monitor: their agreement was shown below the target",
            ["task_type"],
            registry=self.registry,
        )
        self._outage_metrics()
        self._children: dict[tuple[str, str, int], tuple[Any, Any]] = {}  # observe()'s, by label values

    def _outage_metrics(self) -> None:
        """What a database outage leaves behind: the spool, and breaker events held in memory."""
        self.spool_records = Gauge(
            "shadowswitch_spool_records",
            "Decision writes waiting in the on-disk spool for the database",
            registry=self.registry,
        )
        self.spool_bytes = Gauge(
            "shadowswitch_spool_bytes", "Bytes of decision writes in the spool", registry=self.registry
        )
        self.spool_written = Counter(
            "shadowswitch_spool_written",
            "Spooled decision writes written to the database once it was back",
            registry=self.registry,
        )
        self.spool_dropped = Counter(
            "shadowswitch_spool_dropped",
            "Decision writes lost: spool full (or its disk failed), or refused by the database",
            ["reason"],
            registry=self.registry,
        )
        for reason in ("full", "rejected"):
            self.spool_dropped.labels(reason)  # 0 until it happens, not absent
        self.breaker_held = Gauge(
            "shadowswitch_breaker_events_held",
            "Breaker events counted in this replica while the database is away, applied when it is back",
            registry=self.registry,
        )

    def observe(self, decision: Decision) -> None:
        labels = (decision.task_type, decision.path)
        counted = (*labels, decision.status_code)
        children = self._children.get(counted)
        if children is None:  # labels() takes a lock and builds its key: once per label set
            children = self.requests.labels(*labels, str(decision.status_code)), self.latency.labels(*labels)
            self._children[counted] = children
        children[0].inc()
        if decision.key_name:  # as many label values as keys made: bounded by the operators
            self.key_requests.labels(decision.key_name, *labels).inc()
        children[1].observe(decision.latency_ms / 1000)
        if decision.valid is False:
            self.invalid.labels(*labels).inc()
        if decision.abstain_reason:
            self.abstains.labels(decision.task_type, reason_kind(decision.abstain_reason)).inc()

    def observe_pair(self, task_type: str, same_tool: bool, same_call: bool) -> None:
        self.pairs.labels(task_type, "tool", str(same_tool).lower()).inc()
        self.pairs.labels(task_type, "call", str(same_call).lower()).inc()

    def refresh_rollouts(self, rows: Iterable[Rollout]) -> None:
        """Set the state gauges from this replica's live view (every label value, so none goes stale)."""
        for row in rows:
            task = row.task_type
            for state in BREAKER_STATES:
                self.breaker_state.labels(task, state).set(float(row.breaker_state == state))
            for mode in MODES:
                self.rollout_mode.labels(task, mode).set(float(row.mode == mode))
            self.rollout_percent.labels(task).set(row.percent)
            self.breaker_failures.labels(task).set(row.consecutive_failures)
            for event in BREAKER_EVENTS:
                self.breaker_events.labels(task, event)  # 0 until it happens, not absent
