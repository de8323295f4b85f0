"""Prometheus metrics, on a registry per app so that several apps can live in one process."""

from __future__ import annotations

from collections.abc import Iterable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from shadowswitch.store.tables import Decision, Rollout

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
            "Breaker trips, re-probes and restores",
            ["task_type", "event"],
            registry=self.registry,
        )
        self.breaker_state = Gauge(
            "shadowswitch_breaker_open",
            "1 when a task type's breaker is open, 0.5 half-open",
            ["task_type"],
            registry=self.registry,
        )
        self.rollout_percent = Gauge(
            "shadowswitch_rollout_percent",
            "Share of sticky keys served locally",
            ["task_type", "mode"],
            registry=self.registry,
        )

    def observe(self, decision: Decision) -> None:
        labels = (decision.task_type, decision.path)
        self.requests.labels(*labels, str(decision.status_code)).inc()
        self.latency.labels(*labels).observe(decision.latency_ms / 1000)
        if decision.valid is False:
            self.invalid.labels(*labels).inc()

    def refresh_rollouts(self, rows: Iterable[Rollout]) -> None:
        for row in rows:
            self.rollout_percent.labels(row.task_type, row.mode).set(row.percent)
            state = {"closed": 0.0, "half_open": 0.5, "open": 1.0}.get(row.breaker_state, 0.0)
            self.breaker_state.labels(row.task_type).set(state)
