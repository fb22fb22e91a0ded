"""What the request counter counts: messages asking something, not a click or a home opened."""

from __future__ import annotations

from adapters.chat import Actor, ChatEvent, Decision, HomeOpened, Request, ThreadRef
from bot.decisions.metrics import Metrics

THREAD = ThreadRef("slack", "C1", "1.0")
BOB = Actor("U2", "bob")


def _requests(metrics: Metrics) -> float:
    value = metrics.registry.get_sample_value("labbot_requests_total", {"platform": "slack"})
    return value or 0.0


def test_only_requests_count_as_requests() -> None:
    metrics = Metrics()
    events: list[ChatEvent] = [
        HomeOpened(ThreadRef("slack", "D1", ""), BOB),
        Decision(THREAD, BOB, "int-1", "approve", "a" * 64),
        Request(THREAD, BOB, "apply ospf to R1"),
    ]
    for event in events:
        with metrics.handling(event):
            pass
    assert _requests(metrics) == 1.0
