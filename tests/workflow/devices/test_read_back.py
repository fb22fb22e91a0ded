"""A push that fails after the session entered configuration mode is read back from the device:
what landed there (none, some, all, unknown) is the device's truth, never the error's type."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from labsim.lab import Transport
from tests.workflow.devices.rig import Stores, by_name, start_rig

LINES = [f"ntp server 192.0.2.{n}" for n in range(1, 6)]
FAULTS = {"R1": "drop_at_exit", "R2": {"drop_after": 2}, "R3": "drop_read_back"}


@pytest.mark.parametrize("transport", ["telnet", "ssh"])
async def test_each_broken_push_says_what_landed_as_read_back(
    tmp_path: Path, stores: Stores, transport: Transport
) -> None:
    async for rig in start_rig(tmp_path, stores, 4, transport, faults=FAULTS):
        plan = {f"R{i}": LINES for i in range(1, 5)}
        response = await rig.gateway.push("change-rb", plan)
        configs = {name: rig.lab.device(name).running_config() for name in plan}
        rollback = await rig.gateway.rollback_plan("change-rb", plan)

    items = by_name(response["data"])
    # R1 took every line, then dropped the session at `end`
    assert items["R1"]["status"] == "failed"
    assert items["R1"]["landed"] == {"kind": "all", "lines": sorted(LINES), "total": 5}
    assert all(line in configs["R1"] for line in LINES)
    # R2 dropped it at the third of five lines: two landed
    assert items["R2"]["landed"] == {"kind": "some", "lines": LINES[:2], "total": 5}
    assert "192.0.2.3" not in configs["R2"]
    # R3 took them all, then dropped every read: what landed is unknown, never none
    landed = items["R3"]["landed"]
    assert (landed["kind"], landed["lines"], landed["total"]) == ("unknown", [], 5)
    unread = r"(session to|no answer from) 127\.0\.0\.1:\d+ (dropped|in time) \(.+\)"
    assert re.fullmatch(unread, landed.get("unread", ""))  # telnet sees EOF, SSH waits
    assert all(line in configs["R3"] for line in LINES)
    assert items["R4"]["status"] == "success" and "landed" not in items["R4"]
    # what landed is undone: from the read back, or (unreadable) as if every line had taken
    assert sorted(rollback) == ["R1", "R2", "R3", "R4"]  # the change, wherever it took
    assert sorted(rollback["R1"]) == sorted(f"no {line}" for line in LINES)
    assert sorted(rollback["R2"]) == sorted(f"no {line}" for line in LINES[:2])
    assert sorted(rollback["R3"]) == sorted(f"no {line}" for line in LINES)
