"""The official langgraph-checkpoint-conformance suite, every capability, on both backends
(sealed, as labbot runs it; in memory with LangGraph's plain serializer)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.checkpoint.serde.base import SerializerProtocol

from storage.checkpointer import SQLAlchemySaver
from storage.encryption import StorageKeys, encrypted_serde, new_key


async def assert_conformant(url: str, serde: SerializerProtocol | None = None) -> None:
    async def factory() -> AsyncIterator[SQLAlchemySaver]:
        async with SQLAlchemySaver.from_url(url, serde=serde) as saver:
            yield saver

    report = await validate(checkpointer_test(name="SQLAlchemySaver")(factory))
    failures = {name: r.failures for name, r in report.results.items() if not r.passed}
    assert failures == {}, failures
    # every capability, base and optional, was detected and actually exercised
    assert all(r.detected and r.tests_passed > 0 for r in report.results.values())


async def test_conformance_suite_passes_with_every_capability(database_url: str) -> None:
    """With the serializer labbot runs with: every value sealed (storage.encryption)."""
    await assert_conformant(database_url, encrypted_serde(StorageKeys([new_key()])))


async def test_conformance_suite_passes_on_in_memory_sqlite() -> None:
    """In memory there is no file for a worker thread to open: the saver runs on the async
    engine itself, the path PostgreSQL takes, so that path is checked on SQLite too."""
    await assert_conformant("sqlite+aiosqlite://")
