"""The whole chat flow on IOS-like devices that land at `R1>` and need `enable` and its secret
(the simulated lab set up like a real login: SSH user at privilege 1, consoles of a freshly
booted IOSv), for SSH and telnet; and a wrong secret: one clear line per device, nothing pushed,
no backup stored."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa
from pydantic import SecretStr

from bot.cli.demo import DEMO_CREDENTIALS, demo_settings
from bot.runtime.wiring import Runtime, open_runtime
from bot.settings import load_settings
from labsim import Lab, demo_topology
from labsim.lab import Transport
from storage.db import make_engine
from storage.schema import config_backups
from tests.bot.chat import RecordingAdapter, ask, click
from workflow.devices.inventories.static import StaticInventory

REQUEST = "apply ospf to R1,R2"


@asynccontextmanager
async def bot_at_user_exec(
    tmp_path: Path, transport: Transport, secret: str, chat: RecordingAdapter
) -> AsyncIterator[tuple[Lab, Runtime]]:
    async with Lab.start(
        demo_topology(2, switch=False),
        ssh=transport == "ssh",
        telnet=transport == "telnet",
        console_exec="user",
        **DEMO_CREDENTIALS,
    ) as lab:
        settings = demo_settings(load_settings(data_dir=tmp_path))
        settings = settings.model_copy(update={"device_secret": SecretStr(secret)})
        inventory = StaticInventory(lab.write_inventory(tmp_path / "hosts.yaml", transport))
        async with open_runtime(settings, chat, inventory=inventory) as runtime:
            yield lab, runtime


@pytest.mark.parametrize("transport", ["ssh", "telnet"])
async def test_the_whole_flow_enables_at_user_exec(tmp_path: Path, transport: Transport) -> None:
    chat = RecordingAdapter()
    async with bot_at_user_exec(tmp_path, transport, DEMO_CREDENTIALS["secret"], chat) as (
        lab,
        bot,
    ):
        await bot.service.handle(ask(REQUEST, "alice"))
        assert "Step 1 of 2" in chat.last_gate()[1].text, chat.texts()
        await bot.service.handle(click(chat, "bob"))
        gate = chat.last_gate()[1]
        assert "Step 2 of 2" in gate.text
        diff = "\n".join(block.text for block in gate.blocks)
        assert re.search(r"network 10\.0\.0\.0 0\.0\.0\.3 area 0 *← router ospf 1", diff)  # R1's
        await bot.service.handle(click(chat, "bob"))
        assert "router ospf 1" in lab.device("R1").running_config()
        assert "router ospf 1" in lab.device("R2").running_config()
        assert "enable" in lab.device("R1").commands_seen
    assert any("pushed: ✓ 2 ✗ 0 of 2" in text for text in chat.texts()), chat.texts()


@pytest.mark.parametrize("transport", ["ssh", "telnet"])
async def test_a_wrong_secret_is_one_line_per_device_and_nothing_happens(
    tmp_path: Path, transport: Transport
) -> None:
    chat = RecordingAdapter()
    async with bot_at_user_exec(tmp_path, transport, "not-the-secret", chat) as (lab, bot):
        await bot.service.handle(ask(REQUEST, "alice"))
        said = "\n".join(chat.texts())
        for name in ("R1", "R2"):
            assert (
                f"{name}: `enable` was refused: still at `{name}>` — is LABBOT_DEVICE_SECRET "
                "(or the inventory's secret) right?"
            ) in said, said
            assert "router ospf" not in lab.device(name).running_config()
            assert not any("configure" in line for line in lab.device(name).commands_seen)
        assert "not-the-secret" not in said
        assert "Invalid input" not in said  # never taken for configuration
    engine = make_engine(f"sqlite+aiosqlite:///{tmp_path}/labbot.db")
    async with engine.connect() as conn:
        assert (
            await conn.execute(sa.select(sa.func.count()).select_from(config_backups))
        ).scalar() == 0
    await engine.dispose()
