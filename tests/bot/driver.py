"""A labbot process for crash and multi-process tests: start a change, or decide a gate.

  python -m tests.bot.driver start  DB INVENTORY THREAD USER TEXT     (prints the gate, then waits)
  python -m tests.bot.driver decide DB INVENTORY THREAD USER INTERRUPT SHA256 [CHOICE]

Prints one JSON line per message the bot posts, then {"done": true}. A test starts it with
`start_driver` and reads it with `read_until_done`.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from adapters.chat import Actor, Decision, Message, Request, ThreadRef
from bot.cli.demo import demo_settings
from bot.runtime.wiring import open_runtime
from bot.settings import load_settings
from tests.support.postgres import SHARED_AUDIT_KEY, SHARED_STORAGE_KEY
from workflow.devices.inventories.static import StaticInventory

ROOT = Path(__file__).resolve().parents[2]


def start_driver(*args: str, env: Mapping[str, str] | None = None) -> subprocess.Popen[str]:
    """This driver in a process of its own (`env`: its environment, default this one's)."""
    return subprocess.Popen(
        [sys.executable, "-m", "tests.bot.driver", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**(os.environ if env is None else env), "PYTHONPATH": str(ROOT)},
    )


def read_until_done(process: subprocess.Popen[str]) -> list[dict[str, Any]]:
    """What the driver printed, up to its {"done": true}."""
    lines = []
    assert process.stdout is not None
    for line in process.stdout:
        lines.append(json.loads(line))
        if lines[-1].get("done"):
            return lines
    raise AssertionError(f"driver ended early: {process.stderr.read() if process.stderr else ''}")


def gate_of(lines: list[dict[str, Any]]) -> tuple[str, str]:
    """(interrupt id, sha256) of the last gate the driver's bot posted."""
    buttons = [line["post"]["buttons"] for line in lines if line.get("post", {}).get("buttons")]
    assert buttons, f"no gate was posted; the bot said: {lines}"
    interrupt_id, _, sha256 = buttons[-1][0]["value"].partition("|")
    return interrupt_id, sha256


class PrintingAdapter:
    platform = "console"

    def __init__(self) -> None:
        self.count = 0

    async def run(self, handler: object) -> None:
        return None

    async def post(self, thread: ThreadRef, message: Message) -> str:
        self.count += 1
        shown = asdict(replace(message, files=()))  # a picture's bytes are not JSON: its name
        shown["files"] = [attached.name for attached in message.files]
        print(json.dumps({"post": shown}), flush=True)
        return f"m{self.count}"

    async def update(self, thread: ThreadRef, message_id: str, message: Message) -> None:
        print(json.dumps({"update": message.footer or message.text}), flush=True)

    async def close_gate(
        self, thread: ThreadRef, message_id: str, footer: str, mentions: tuple[str, ...] = ()
    ) -> None:
        print(json.dumps({"update": footer}), flush=True)


async def main(action: str, db: str, inventory: str, thread_id: str, user: str, *rest: str) -> None:
    settings = demo_settings(load_settings(data_dir=Path(inventory).parent))
    shared = {
        "database_url": db,
        "audit_key": SecretStr(SHARED_AUDIT_KEY),
        "storage_key": SecretStr(SHARED_STORAGE_KEY),
    }
    settings = settings.model_copy(update=shared)
    thread = ThreadRef("console", "lab-channel", thread_id)
    actor = Actor(f"console:{user}", user)
    adapter = PrintingAdapter()
    async with open_runtime(settings, adapter, inventory=StaticInventory(Path(inventory))) as rt:
        if action == "start":
            await rt.service.handle(Request(thread, actor, rest[0]))
            print(json.dumps({"done": True}), flush=True)
            await asyncio.sleep(3600)  # until the test kills this process
        else:
            interrupt_id, sha256, *choice = rest
            event = Decision(
                thread, actor, interrupt_id, choice[0] if choice else "approve", sha256
            )  # type: ignore[arg-type]
            await rt.service.handle(event)
            print(json.dumps({"done": True}), flush=True)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))
