"""Three labs with the same device names behind two `labbot serve --http` replicas on one
PostgreSQL (bench.many_labs, small): a change asked in every lab's channel at once lands once on
each device of that lab and nowhere else; every audit row of a change names its lab."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.fakes.slack_api import SlackApiStandIn
from tests.scale.many_labs import many_labs, one_change, verify

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("deployments")]  # see conftest

LABS = 3
DEVICES = 2


async def test_a_change_in_every_lab_at_once_lands_in_its_own_lab_only(
    tmp_path: Path, database: str, slack_api: SlackApiStandIn
) -> None:
    async with many_labs(tmp_path, database, slack_api, labs=LABS, devices=DEVICES) as bed:
        acks: list[float] = []
        await asyncio.gather(*(one_change(bed, i, DEVICES, acks, 150) for i in range(LABS)))
        assert len(acks) == 2 * LABS  # each gate clicked once, each click answered 200
        await verify(bed, DEVICES)
