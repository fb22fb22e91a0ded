"""`workflow.ports.DeviceGateway` on Nornir + nornir-netmiko.

Per-device failures are data: every device in a push gets one ResponseItem, and the locks taken
for a change are released whatever happens. Nornir runs in `asyncio.to_thread` with one worker
per device, so a push to 100 devices takes about as long as a push to one.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

from nornir.core.task import AggregatedResult

from workflow.devices.diffing import rollback_lines
from workflow.devices.facts import interfaces_from_config
from workflow.devices.runner import Credentials, LoopBridge, Timeouts, build_nornir
from workflow.devices.tasks import Outcome, PushJob, push_config, read_config
from workflow.model import (
    Device,
    DeviceFacts,
    Link,
    ProgressCallback,
    ResponseItem,
    StandardResponse,
    UnusableNode,
)
from workflow.ports import BackupStore, DeviceLocks, Inventory

log = logging.getLogger(__name__)


class NornirGateway:
    """Talks to the devices of one inventory with the configured credentials."""

    def __init__(
        self,
        inventory: Inventory,
        *,
        username: str | None,
        password: str | None,
        secret: str | None,
        locks: DeviceLocks,
        backups: BackupStore,
        connect_timeout: float = 15,
        read_timeout: float = 30,
        lock_seconds: float = 900,
    ) -> None:
        self._inventory = inventory
        self._credentials = Credentials(username, password, secret)
        self._timeouts = Timeouts(connect=connect_timeout, read=read_timeout)
        self._locks = locks
        self._backups = backups
        self._lock_seconds = lock_seconds

    async def devices(self) -> tuple[list[Device], list[Link], list[UnusableNode]]:
        return await self._inventory.load()

    async def facts(self, names: Sequence[str]) -> dict[str, DeviceFacts]:
        known, unknown = await self._lookup(names)
        configs = await self._read_configs(list(known.values()))
        facts = {name: _facts(known[name], outcome) for name, outcome in configs.items()}
        for name in unknown:
            facts[name] = DeviceFacts(
                name=name,
                platform="",
                family="",
                interfaces=[],
                running_config="",
                error=f"{name} is not in the inventory",
            )
        return facts

    async def push(
        self,
        change_id: str,
        plan: Mapping[str, Sequence[str]],
        on_progress: ProgressCallback | None = None,
    ) -> StandardResponse:
        started = time.monotonic()
        known, unknown = await self._lookup(list(plan))
        items = {name: _failed(name, f"{name} is not in the inventory") for name in unknown}
        conflicts = await self._locks.acquire(change_id, list(known), self._lock_seconds)
        if conflicts:
            reason = "; ".join(f"{d} is locked by change {c}" for d, c in sorted(conflicts.items()))
            items |= {name: _failed(name, reason) for name in known}
        else:
            try:
                items |= await self._push_locked(change_id, plan, known, on_progress)
            finally:
                await self._locks.release(change_id, list(known))
        ordered = [items[name] for name in plan]
        return _response(ordered, change_id=change_id, seconds=time.monotonic() - started)

    async def rollback_plan(self, change_id: str) -> dict[str, list[str]]:
        """Lines that bring each device of `change_id` back to its "before" backup.

        The current config is read live; when a device cannot be read, the "after" backup
        (the config the push left) stands in. Devices with nothing to undo are left out.
        """
        backups = await self._backups.configs(change_id, "before")
        known, _ = await self._lookup(list(backups))
        live = await self._read_configs(list(known.values()))
        after = await self._backups.configs(change_id, "after")
        plan: dict[str, list[str]] = {}
        for name, device in known.items():
            current = live[name].text if live[name].ok else after.get(name)
            if current is None:
                log.warning("rollback of %s: %s unreadable and no after-backup", change_id, name)
                continue
            lines = rollback_lines(backups[name], current, device.platform)
            if lines:
                plan[name] = lines
        return plan

    async def _push_locked(
        self,
        change_id: str,
        plan: Mapping[str, Sequence[str]],
        known: Mapping[str, Device],
        on_progress: ProgressCallback | None,
    ) -> dict[str, ResponseItem]:
        if not known:
            return {}
        bridge = LoopBridge(asyncio.get_running_loop(), on_progress, total=len(known))
        job = PushJob(
            change_id=change_id,
            plan={name: list(plan[name]) for name in known},
            bridge=bridge,
            backups=self._backups,
            credentials=self._credentials,
            timeouts=self._timeouts,
        )
        try:
            results = await self._run(list(known.values()), push_config, job=job)
        finally:
            await bridge.drain()
        return {name: _item(name, outcome) for name, outcome in results.items()}

    async def _read_configs(self, devices: list[Device]) -> dict[str, Outcome]:
        if not devices:
            return {}
        return await self._run(
            devices, read_config, credentials=self._credentials, timeouts=self._timeouts
        )

    async def _run(self, devices: list[Device], task: Any, **params: Any) -> dict[str, Outcome]:
        nornir = build_nornir(devices, self._credentials, self._timeouts)
        aggregated: AggregatedResult = await asyncio.to_thread(nornir.run, task=task, **params)
        return {name: _outcome(multi[0].result) for name, multi in aggregated.items()}

    async def _lookup(self, names: Sequence[str]) -> tuple[dict[str, Device], list[str]]:
        devices, _, _ = await self._inventory.load()
        by_name = {device.name: device for device in devices}
        known = {name: by_name[name] for name in names if name in by_name}
        return known, [name for name in names if name not in by_name]


def _outcome(value: object) -> Outcome:
    # a task that died outside its own try (a Nornir fault) leaves a traceback string instead
    return value if isinstance(value, Outcome) else Outcome(False, error=str(value)[-300:])


def _facts(device: Device, outcome: Outcome) -> DeviceFacts:
    facts = DeviceFacts(
        name=device.name,
        platform=device.platform,
        family=device.family,
        interfaces=interfaces_from_config(outcome.text) if outcome.ok else [],
        running_config=outcome.text,
    )
    if not outcome.ok:
        facts["error"] = outcome.error
    return facts


def _item(name: str, outcome: Outcome) -> ResponseItem:
    if outcome.ok:
        return ResponseItem(id=name, name=name, status="success", result=outcome.text)
    item = _failed(name, outcome.error)
    if outcome.text:
        item["result"] = outcome.text
    return item


def _failed(name: str, reason: str) -> ResponseItem:
    return ResponseItem(id=name, name=name, status="failed", error=reason)


def _response(items: list[ResponseItem], *, change_id: str, seconds: float) -> StandardResponse:
    successful = sum(item["status"] == "success" for item in items)
    response = StandardResponse(
        success=successful == len(items) and bool(items),
        total=len(items),
        successful=successful,
        failed=len(items) - successful,
        data=items,
        metadata={"change_id": change_id, "seconds": round(seconds, 3)},
    )
    if response["failed"]:
        response["error"] = f"{response['failed']} of {len(items)} devices failed"
    return response
