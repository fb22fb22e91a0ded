"""Fixtures for device tests: a rig (tests.workflow.devices.rig) of a simulated lab and the
gateway in front of it, on the stores of tests/workflow/conftest.py."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.workflow.devices.rig import Rig, Stores, start_rig


@pytest.fixture
async def rig(tmp_path: Path, stores: Stores) -> AsyncIterator[Rig]:
    """Three routers and a switch (demo topology), over telnet like GNS3 consoles."""
    async for value in start_rig(tmp_path, stores, 3):
        yield value
