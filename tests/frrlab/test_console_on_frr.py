"""`labbot console` on a real FRR lab, as a person runs it: the inventory `labbot lab --frr`
writes, the OS user asks, a second console user from LABBOT_CONSOLE_USERS approves, OSPF comes
up and the post-checks are shown; the audit names who asked and who approved."""

from __future__ import annotations

import asyncio
import json
import os
import pwd
from pathlib import Path

import pytest

from frrlab import FrrLab
from tests.bot.test_cli import labbot
from tests.frrlab.test_chat_changes import eventually, full_neighbours

pytestmark = [
    pytest.mark.frr,
    pytest.mark.usefixtures("frr_host"),
    pytest.mark.xdist_group("frr-lab"),
]

TYPED = """\
configure ospf on all routers with hello-interval 1
1
as mallory
as bob
1
1
quit
"""


async def test_labbot_console_pushes_ospf_with_post_checks_and_four_eyes(tmp_path: Path) -> None:
    me = pwd.getpwuid(os.getuid()).pw_name
    data = tmp_path / "data"
    async with FrrLab.start() as lab:
        settings = {
            "LABBOT_INVENTORY": str(lab.write_inventory(tmp_path / "hosts.yaml", "telnet")),
            "LABBOT_DATA_DIR": str(data),
            "LABBOT_DATABASE_URL": f"sqlite+aiosqlite:///{data / 'labbot.db'}",
            "LABBOT_CONSOLE_USERS": "Bob,carol",
            "COLUMNS": "250",
        }
        console = await asyncio.to_thread(
            labbot, "console", cwd=tmp_path, env=settings, stdin=TYPED
        )
        assert console.returncode == 0, console.stderr
        expected = {"R1": {"10.255.0.2"}, "R2": {"10.255.0.1", "10.255.0.3"}, "R3": {"10.255.0.2"}}
        assert await eventually(
            lambda: all(full_neighbours(lab, r) == n for r, n in expected.items())
        )
    said = console.stdout
    assert f"you are {me}" in said and "Starting clean" in said
    assert "you requested this change; someone else must approve it (four-eyes" in said
    assert "mallory may not sit at this console: LABBOT_CONSOLE_USERS lists bob, carol" in said
    assert "(you are now bob)" in said and "✅ Approved by bob" in said
    assert "pushed: ✓ 3 ✗ 0 of 3" in said
    assert "✓ OSPF neighbour 10.0.12.1 (R1 eth0) Full" in said
    assert "✓ route 10.255.0.3/32 (R3 lo) installed" in said
    audit = labbot("audit", "--format", "json", cwd=tmp_path, env=settings)
    assert audit.returncode == 0, audit.stderr
    entries = json.loads(audit.stdout)
    (change,) = [e for e in entries if e["kind"] == "change"]
    resolved = [(e["gate"], e["actor_id"]) for e in entries if e["kind"] == "resolved"]
    assert change["actor_id"] == f"console:{me}"
    assert resolved == [("template", "console:bob"), ("params", "console:bob")]
    refused = [(e["actor_id"], e["gate"]) for e in entries if e["kind"] == "refusal"]
    assert refused == [(f"console:{me}", "template")]
