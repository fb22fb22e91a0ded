"""What `/metrics` shows, in Prometheus text format: the decision service counts as it works.

`process_metrics()` is the one `Metrics` of a `labbot serve` process, shared by every adapter's
decision service and the HTTP endpoint; tests build their own so counts never leak between them.
Label values come from small fixed sets (platforms, gates, choices, outcomes, statuses), never
from user text: every distinct label value is a time series kept forever.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    ProcessCollector,
    generate_latest,
)

from adapters.chat import ChatEvent, Decision, Request
from base.vocabulary import CHOICES, OUTCOMES, Choice, Outcome, Status

__all__ = ["Metrics", "process_metrics"]

FAILURE_KINDS = ("change", "error", "unexpected")
# Seconds: a refusal answers in milliseconds, a template step in seconds, a push in tens.
LATENCY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)


class Metrics:
    """The counters and histograms of one process, in their own registry."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        ProcessCollector(registry=self.registry)  # process_resident_memory_bytes, CPU, fds
        self.requests = self._counter(
            "labbot_requests", "Messages to labbot: change requests and commands", ["platform"]
        )
        self.decisions = self._counter(
            "labbot_decisions", "Clicks, reactions or replies on gates", ["choice", "outcome"]
        )
        self.refusals = self._counter(
            "labbot_refusals", "Refusals told to a person, by gate", ["gate"]
        )
        self.pushes = self._counter("labbot_pushes", "Device pushes, by result", ["status"])
        self.changes = self._counter("labbot_changes_finished", "Changes ended", ["status"])
        self.failures = self._counter(
            "labbot_failures",
            "Failures: a change that failed, an error answered in a thread, an unexpected "
            "exception (see the log)",
            ["kind"],
        )
        self.decision_seconds = Histogram(
            "labbot_decision_latency_seconds",
            "A decision received -> its answer posted (the next step, the result or a refusal)",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.push_seconds = Histogram(
            "labbot_push_duration_seconds",
            "A push: first device started -> last device finished",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        for choice in CHOICES:  # series exist (at 0) before the first click, for dashboards
            for outcome in OUTCOMES:
                self.decisions.labels(choice, outcome)
        for kind in FAILURE_KINDS:
            self.failures.labels(kind)

    def _counter(self, name: str, doc: str, labels: list[str]) -> Counter:
        return Counter(name, doc, labels, registry=self.registry)

    @contextmanager
    def handling(self, event: ChatEvent) -> Iterator[None]:
        """Count a request (not a click, not a home opened), time a decision, count an exception
        nobody handled."""
        started = time.perf_counter()
        if isinstance(event, Request):
            self.requests.labels(event.thread.platform).inc()
        try:
            yield
        except Exception:
            self.failure("unexpected")
            raise
        finally:
            if isinstance(event, Decision):
                self.decision_seconds.observe(time.perf_counter() - started)

    def decision(self, choice: Choice, outcome: Outcome) -> None:
        self.decisions.labels(choice, outcome).inc()

    def refusal(self, gate: str) -> None:
        self.refusals.labels(gate or "none").inc()

    def push(self, status: str) -> None:
        self.pushes.labels(status).inc()

    def push_duration(self, seconds: float) -> None:
        self.push_seconds.observe(seconds)

    def change_finished(self, status: Status) -> None:
        self.changes.labels(status).inc()
        if status == "failed":
            self.failure("change")

    def failure(self, kind: str) -> None:
        self.failures.labels(kind).inc()

    def exposition(self) -> tuple[bytes, str]:
        """The text a Prometheus scrape reads, and its content type."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST


@cache
def process_metrics() -> Metrics:
    """The metrics of this process (created on first use)."""
    return Metrics()
