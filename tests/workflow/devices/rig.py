"""A simulated lab on loopback and the gateway in front of it, with the real lock and backup
stores: what the device tests drive."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.views.failure import failure_text
from labsim.lab import Lab, Transport
from storage.config_backups import ConfigBackupStore
from storage.locks import DeviceLockStore
from workflow.devices.gateway import NornirGateway
from workflow.devices.inventories.static import StaticInventory
from workflow.ports import Inventory

USERNAME, PASSWORD, SECRET = "labadmin", "Sup3r-S3cret-pw", "En4ble-S3cret"
CONNECT_TIMEOUT, READ_TIMEOUT = 3, 6
OSPF_LINES = ["router ospf 1", " network 10.0.0.0 0.255.255.255 area 0"]


@dataclass
class Stores:
    locks: DeviceLockStore
    backups: ConfigBackupStore

    async def locked(self, devices: Sequence[str]) -> dict[str, str]:
        """{device: change} some change still holds: what a second change would be refused for."""
        held = await self.locks.acquire("lock-probe", devices, 1)
        await self.locks.release("lock-probe", devices)
        return {lock.device: lock.change_id for lock in held}

    def gateway(
        self,
        inventory: Inventory,
        *,
        username: str | None = USERNAME,
        password: str | None = PASSWORD,
        secret: str | None = SECRET,
    ) -> NornirGateway:
        """The gateway on these stores; the login as LABBOT_DEVICE_* would give it."""
        return NornirGateway(
            inventory,
            username=username,
            password=password,
            secret=secret,
            locks=self.locks,
            backups=self.backups,
            say=failure_text,
            connect_timeout=CONNECT_TIMEOUT,
            read_timeout=READ_TIMEOUT,
        )


@dataclass
class Rig:
    lab: Lab
    gateway: NornirGateway
    stores: Stores
    inventory_path: Path


async def start_rig(
    tmp_path: Path, stores: Stores, devices: int, transport: Transport = "telnet", **options: Any
) -> AsyncIterator[Rig]:
    async with Lab.start(
        devices,
        ssh=transport == "ssh",
        telnet=transport == "telnet",
        username=USERNAME,
        password=PASSWORD,
        secret=SECRET,
        **options,
    ) as lab:
        path = lab.write_inventory(tmp_path / "hosts.yaml", transport)
        yield Rig(lab, stores.gateway(StaticInventory(path)), stores, path)


def by_name(data: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    return {item["name"]: item for item in data}
