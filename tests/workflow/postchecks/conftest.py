"""The device fixtures (database, lock and backup stores) for the post-check engine tests."""

from tests.workflow.devices.conftest import engine, stores

__all__ = ["engine", "stores"]
