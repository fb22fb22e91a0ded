"""The official langgraph-checkpoint-conformance suite, every capability, on both backends."""

from __future__ import annotations

from collections.abc import AsyncIterator

from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.checkpoint.conformance.report import CapabilityReport

from storage.checkpointer import SQLAlchemySaver


async def test_conformance_suite_passes_with_every_capability(database_url: str) -> None:
    async def factory() -> AsyncIterator[SQLAlchemySaver]:
        async with SQLAlchemySaver.from_url(database_url) as saver:
            yield saver

    report: CapabilityReport = await validate(checkpointer_test(name="SQLAlchemySaver")(factory))
    failures = {
        name: result.failures for name, result in report.results.items() if not result.passed
    }
    assert failures == {}, failures
    assert all(result.detected for result in report.results.values())
    print({n: r.tests_passed for n, r in report.results.items()})
