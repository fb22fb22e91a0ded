"""The two simulated labs the many-labs tests run on."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from labsim import Lab
from tests.support.two_labs import two_labs


@pytest.fixture
async def labs(tmp_path: Path) -> AsyncIterator[dict[str, Lab]]:
    """Lab red (R1-R3) and lab blue (R1, R2), each its own simulated devices."""
    async with two_labs(tmp_path) as labs:
        yield labs
