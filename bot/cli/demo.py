"""`labbot demo`: the simulated lab, console chat, SQLite and the library planner (or the LLM)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from pydantic import SecretStr
from rich.table import Table

from adapters.console.adapter import ConsoleAdapter
from adapters.console.render import styled
from bot import messages
from bot.cli.console import chat_input, run_session
from bot.commands.registry import command_words
from bot.records.place import database_shown
from bot.runtime.wiring import open_runtime
from bot.settings import Settings, embedded_database_url
from labsim import Lab, demo_topology
from workflow.devices.inventories.static import StaticInventory

# Not words: every credential value is hidden from chat wherever it stands as a word of its own.
DEMO_CREDENTIALS = {"username": "admin", "password": "labsim-pass", "secret": "labsim-enable"}


def demo_settings(settings: Settings) -> Settings:
    """The demo keeps its records in its data dir's embedded database (./labbot-demo unless
    `--data-dir` says otherwise: never a lab's LABBOT_DATA_DIR) and uses the lab's credentials."""
    return settings.model_copy(
        update={
            "database_url": embedded_database_url(settings.data_dir),
            "device_username": DEMO_CREDENTIALS["username"],
            "device_password": SecretStr(DEMO_CREDENTIALS["password"]),
            "device_secret": SecretStr(DEMO_CREDENTIALS["secret"]),
        }
    )


@asynccontextmanager
async def demo_lab(settings: Settings, devices: int) -> AsyncIterator[tuple[Lab, StaticInventory]]:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    credentials = DEMO_CREDENTIALS
    async with Lab.start(
        demo_topology(devices),
        username=credentials["username"],
        password=credentials["password"],
        secret=credentials["secret"],
    ) as lab:
        inventory_path = settings.data_dir / "inventory.yaml"
        lab.write_inventory(inventory_path, transport="telnet")
        yield lab, StaticInventory(inventory_path, lab=messages.DEMO_LAB)


def _lab_table(lab: Lab) -> Table:
    table = Table("device", "platform", "telnet", "ssh", title="simulated lab")
    for device in lab.devices:
        table.add_row(device.name, device.platform, str(device.telnet_port), str(device.ssh_port))
    return table


async def run_demo(settings: Settings, *, user: str, script: Path | None, devices: int) -> None:
    settings = demo_settings(settings)
    chat = chat_input(script)
    console = chat.console()
    adapter = ConsoleAdapter(
        console,
        user=user,
        source=chat.source,
        echo_input=chat.scripted,
        files_dir=settings.data_dir / "files",
        command_words=command_words(),
    )
    async with (
        demo_lab(settings, devices) as (lab, inventory),
        open_runtime(settings, adapter, inventory=inventory) as runtime,
    ):
        console.print(_lab_table(lab))
        database = database_shown(settings.database_url)
        welcome = messages.DEMO_WELCOME.format(
            count=len(lab.devices), db=database, data_dir=settings.data_dir
        )
        console.print(styled(welcome))
        await run_session(console, adapter, runtime)
