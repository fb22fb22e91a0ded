"""Write the stored-checkpoint fixture of the flat graph state (one 28-key ChangeState, before
its per-phase parts): a SQLite database as labbot at commit 4ae4378 leaves it, with two changes
stopped at a gate, for tests/workflow/test_state_upgrade.py to resume with today's code.

- thread `t-template`: alice asks for OSPF on R1; it waits at its template gate;
- thread `t-params`: alice asks for OSPF on R2, bob approves the template; it waits at its
  parameter gate.

Gates expire 24 h after they are made, so the writer runs on a clock set to WRITTEN_AT and the
tests read the fixture on a clock set an hour later (libfaketime, tests/support/clock.py):

    git worktree add --detach /tmp/labbot-flat 4ae4378 && cd /tmp/labbot-flat  (this file copied)
    faketime '2026-12-01 12:00:00' .venv/bin/python -m tests.workflow.flat_state_writer OUT_DIR

Writes OUT_DIR/flat-state.db and OUT_DIR/flat-state.json (each gate's thread, change id,
interrupt id, hash and expiry; the writing commit and clock); the fixture is its SQL text:

    sqlite3 OUT_DIR/flat-state.db .dump > tests/workflow/fixtures/flat-state.sql
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from adapters.chat import ThreadRef
from bot.cli.demo import DEMO_CREDENTIALS, demo_settings
from bot.runtime.wiring import open_runtime
from bot.settings import load_settings
from labsim import Lab, demo_topology
from tests.bot.chat import RecordingAdapter, ask, click
from tests.support.postgres import SHARED_AUDIT_KEY, SHARED_STORAGE_KEY
from workflow.devices.inventories.static import StaticInventory

WRITTEN_AT = "2026-12-01 12:00:00"  # UTC; the clock the writer ran on
AT_TEMPLATE = ThreadRef("console", "lab-channel", "t-template")
AT_PARAMS = ThreadRef("console", "lab-channel", "t-params")


async def write(out: Path) -> dict[str, Any]:
    database = out / "flat-state.db"
    database.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory() as data:
        settings = demo_settings(load_settings(data_dir=Path(data)))
        shared = {
            "database_url": f"sqlite+aiosqlite:///{database}",
            "audit_key": SecretStr(SHARED_AUDIT_KEY),
            "storage_key": SecretStr(SHARED_STORAGE_KEY),
        }
        settings = settings.model_copy(update=shared)
        async with Lab.start(demo_topology(2), **DEMO_CREDENTIALS) as lab:
            hosts = lab.write_inventory(Path(data) / "hosts.yaml")
            chat = RecordingAdapter()
            async with open_runtime(settings, chat, inventory=StaticInventory(hosts)) as bot:
                await bot.service.handle(ask("apply ospf to R1", "alice", AT_TEMPLATE))
                await bot.service.handle(ask("apply ospf to R2", "alice", AT_PARAMS))
                await bot.service.handle(click(chat, "bob", thread=AT_PARAMS))
                gates = {}
                for thread in (AT_TEMPLATE, AT_PARAMS):
                    gate = await bot.workflow.pending_gate(thread.key)
                    assert gate is not None, f"{thread.key} stopped at no gate"
                    gates[thread.thread] = {
                        "thread_key": thread.key,
                        "gate": gate.gate,
                        "change_id": gate.change_id,
                        "interrupt_id": gate.interrupt_id,
                        "sha256": gate.sha256,
                        "expires_at": gate.expires_at,
                    }
    return {"written_at": WRITTEN_AT, "gates": gates}


def main(out: Path) -> None:
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True)
    about = {"commit": commit.stdout.strip(), **asyncio.run(write(out))}
    (out / "flat-state.json").write_text(json.dumps(about, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
