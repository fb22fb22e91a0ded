"""Faulty devices fail alone, with the reason, within the timeouts, and leave nothing locked."""

from __future__ import annotations

import re
import time
from pathlib import Path

from tests.workflow.devices.rig import (
    CONNECT_TIMEOUT,
    READ_TIMEOUT,
    Stores,
    by_name,
    start_rig,
)
from workflow.model import PushProgress

LINES = [
    "interface Loopback0",
    " description managed by labbot",
    "router ospf 1",
    " network 10.0.0.0 0.255.255.255 area 0",
]
FAULTS = {"R1": "refuse", "R2": "hang", "R4": {"drop_after": 1}}
REJECT = {"R3": ["^ *network "]}


async def test_each_fault_is_reported_per_device_and_the_rest_succeed(
    tmp_path: Path, stores: Stores
) -> None:
    async for rig in start_rig(tmp_path, stores, 5, faults=FAULTS, reject=REJECT):
        plan = {f"R{i}": LINES for i in range(1, 6)}
        events: list[PushProgress] = []
        started = time.monotonic()
        response = await rig.gateway.push("change-f", plan, events.append)
        elapsed = time.monotonic() - started
        r5_config = rig.lab.device("R5").running_config()
        r3_config = rig.lab.device("R3").running_config()
        rollback = await rig.gateway.rollback_plan("change-f")
        facts = await rig.gateway.facts(["R1", "R2", "R5"])

    items = by_name(response["data"])
    errors = {name: items[name].get("error", "") for name in items}
    # each failure is said in the bot's words (bot/messages/devices.py), with its facts
    assert re.fullmatch(r"connection refused by 127\.0\.0\.1:\d+", errors["R1"])
    said_nothing = (
        rf"no answer from 127\.0\.0\.1:\d+ in time \(.*said nothing within {CONNECT_TIMEOUT} s.*\)"
    )
    assert re.fullmatch(said_nothing, errors["R2"])
    assert re.fullmatch(
        r"the device rejected a line: .*network 10\.0\.0\.0.* "
        r"\(lines before it were applied; roll back to undo them\)",
        errors["R3"],
    )
    assert re.fullmatch(r"session to 127\.0\.0\.1:\d+ dropped \(\w+: .+\)", errors["R4"])
    assert items["R5"]["status"] == "success"
    assert (response["successful"], response["failed"]) == (1, 4)
    assert "error" not in response  # failures are per device, not global

    assert elapsed < CONNECT_TIMEOUT + READ_TIMEOUT  # the hung console did not hold the run
    assert await stores.locked(list(plan)) == {}
    assert "router ospf 1" in r5_config
    # R3 took the lines before the rejected one; its backups make that undoable
    assert "description managed by labbot" in r3_config
    assert set(await stores.backups.configs("change-f", "after")) >= {"R3", "R5"}
    assert "R1" not in await stores.backups.configs("change-f", "before")
    assert any("description" in line for line in rollback["R3"])
    # facts of unreachable devices are errors as data, the others are read
    assert facts["R1"]["error"] == errors["R1"]
    assert re.fullmatch(said_nothing, facts["R2"]["error"])
    assert "error" not in facts["R5"] and facts["R5"]["interfaces"]
    # every device reported its end to the chat, failures with their reason
    ends = {event.device: event for event in events if event.stage != "started"}
    assert {name: event.stage for name, event in ends.items()} == {
        "R1": "failed",
        "R2": "failed",
        "R3": "failed",
        "R4": "failed",
        "R5": "done",
    }
    assert {name: ends[name].detail for name in errors} == errors | {"R5": ""}
    assert sorted(event.done for event in ends.values()) == [1, 2, 3, 4, 5]


async def test_a_console_slow_to_show_its_prompt_reads_and_pushes_cleanly(
    tmp_path: Path, stores: Stores
) -> None:
    """R1's console shows its first prompt 0.4 s late and then answers the Enter labbot sent to
    wake it (a second prompt): no read may carry that prompt, or the push would see a config
    changed since its preview and refuse."""
    async for rig in start_rig(tmp_path, stores, 2, faults={"R1": {"slow_start": 400}}):
        facts = await rig.gateway.facts(["R1", "R2"])
        shown = {name: facts[name]["running_config"] for name in ("R1", "R2")}
        assert all(not re.search(r"^R\d[#>]", text, re.M) for text in shown.values()), shown
        response = await rig.gateway.push("change-s", {"R1": LINES, "R2": LINES}, previewed=shown)
        assert response["success"], response
        assert "drifted" not in response["metadata"]
        assert "router ospf 1" in rig.lab.device("R1").running_config()
