"""`workflow.ports.DeviceGateway` on Nornir + nornir-netmiko.

Per-device failures are data: every device in a push gets one ResponseItem, and the locks taken
for a change are released whatever happens. Nornir runs in `asyncio.to_thread` with one worker
per device up to `sessions` (LABBOT_DEVICE_SESSIONS, session_limits.py), so a push to 30 devices
takes about as long as a push to one, and a push to 10,000 never starts 10,000 threads.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from nornir.core import Nornir
from nornir.core.inventory import Host
from nornir.core.task import AggregatedResult

from workflow.devices.diffing import config_with, rollback_lines
from workflow.devices.failure import SayFailure, failure
from workflow.devices.postcheck import CheckJob, post_check
from workflow.devices.results import (
    device_facts,
    device_result,
    failed_item,
    landed,
    response_item,
)
from workflow.devices.runner import Credentials, LoopBridge, Timeouts, build_nornir
from workflow.devices.session_limits import DEFAULT_SESSIONS, checked_sessions
from workflow.devices.sessions import HeldSessions
from workflow.devices.tasks import (
    DeviceResult,
    PushJob,
    ReadJob,
    close_sessions,
    open_for_push,
    push_config,
    read_command,
    read_config,
    read_facts,
)
from workflow.devices.volatile import drift_diff
from workflow.model import (
    BackupStage,
    Device,
    DeviceFacts,
    Link,
    ProgressCallback,
    ResponseItem,
    StandardResponse,
    UnusableNode,
)
from workflow.ports import BackupStore, DeviceLocks, Inventory
from workflow.postcheck_outcome import DeviceChecks
from workflow.postchecks.evaluate import Expectation
from workflow.results.responses import build_response

__all__ = ["NornirGateway"]

log = logging.getLogger(__name__)


@dataclass
class PushNotes:
    """What a push found on its way, for its response's metadata: the devices changed since
    their preview (what changed on each) and, per device, the backups stored."""

    drifted: dict[str, str] = field(default_factory=dict)
    backups: dict[str, list[BackupStage]] = field(default_factory=dict)

    def stored(self, device: str, stage: BackupStage) -> None:
        self.backups.setdefault(device, []).append(stage)


class NornirGateway:
    """Talks to the devices of one inventory with the configured credentials; a device's failure
    is said with `say` (the bot's wording)."""

    def __init__(
        self,
        inventory: Inventory,
        *,
        username: str | None,
        password: str | None,
        secret: str | None,
        locks: DeviceLocks,
        backups: BackupStore,
        say: SayFailure,
        connect_timeout: float = 15,
        read_timeout: float = 30,
        lock_seconds: float = 900,
        sessions: int = DEFAULT_SESSIONS,
    ) -> None:
        self._inventory = inventory
        self._credentials = Credentials(username, password, secret)
        self._timeouts = Timeouts(connect=connect_timeout, read=read_timeout)
        self._locks = locks
        self._backups = backups
        self._say = say  # the bot's wording of a device's failure (bot/views/failure.py)
        self._lock_seconds = lock_seconds
        self._sessions = checked_sessions(sessions)
        self._held = HeldSessions()
        self._closing: set[asyncio.Task[int]] = set()

    async def devices(self) -> tuple[list[Device], list[Link], list[UnusableNode]]:
        return await self._inventory.load()

    async def facts(self, names: Sequence[str]) -> dict[str, DeviceFacts]:
        known, unknown = await self._lookup(names)
        devices = list(known.values())
        configs = await self._run(devices, read_facts, timeouts=self._timeouts) if devices else {}
        scrub = self._credentials.scrub  # a device config may hold the very password we use
        facts = {
            name: device_facts(known[name], scrub(result.text), result, self._say)
            for name, result in configs.items()
        }
        for name in unknown:
            facts[name] = DeviceFacts(
                name=name,
                platform="",
                family="",
                interfaces=[],
                running_config="",
                error=self._say(failure("unknown", name)),
            )
        return facts

    async def push(
        self,
        change_id: str,
        plan: Mapping[str, Sequence[str]],
        on_progress: ProgressCallback | None = None,
        previewed: Mapping[str, str] | None = None,
        hold_sessions: bool = False,
    ) -> StandardResponse:
        started = time.monotonic()
        known, unknown = await self._lookup(list(plan))
        notes = PushNotes()
        items = {name: self._unknown(name) for name in unknown}
        conflicts = await self._locks.acquire(change_id, list(known), self._lock_seconds)
        locked = "; ".join(self._say(failure("locked", h.device, h.change_id)) for h in conflicts)
        if conflicts:
            items |= {name: failed_item(name, locked) for name in known}
        else:
            try:
                job = PushJob(
                    plan={name: list(plan[name]) for name in known},
                    bridge=LoopBridge(
                        asyncio.get_running_loop(), on_progress, len(known), self._say
                    ),
                    timeouts=self._timeouts,
                    previewed=dict(previewed or {}),
                    hold=hold_sessions,
                )
                items |= await self._push_locked(change_id, known, job, notes)
            finally:
                await self._locks.release(change_id, list(known))
        metadata = {"change_id": change_id, "seconds": round(time.monotonic() - started, 3)}
        if notes.drifted:
            metadata["drifted"] = notes.drifted
        if notes.backups:
            metadata["backups"] = notes.backups
        return build_response(
            [items[name] for name in plan], error=locked or None, metadata=metadata
        )

    async def post_check(
        self,
        expected: Mapping[str, Sequence[Expectation]],
        wait_seconds: float,
        on_progress: ProgressCallback | None = None,
    ) -> StandardResponse:
        """Poll every device until what it must show holds, or `wait_seconds` pass."""
        started = time.monotonic()
        known, unknown = await self._lookup(list(expected))
        items = {name: self._unknown(name) for name in unknown}
        items |= {name: _not_checked(device) for name, device in known.items() if device.simulator}
        known = {name: device for name, device in known.items() if not device.simulator}
        if known:
            bridge = LoopBridge(asyncio.get_running_loop(), on_progress, len(known), self._say)
            job = CheckJob(expected, started + wait_seconds, bridge, self._timeouts)
            nornir = self._nornir(list(known.values()))
            self._held.lend(nornir)  # the push's own sessions, when it held them
            try:
                results = await self._run_on(nornir, post_check, job=job)
            finally:
                await asyncio.to_thread(close_sessions, nornir)
                await bridge.drain()
            items |= {name: response_item(name, results[name], self._say) for name in known}
        seconds = round(time.monotonic() - started, 3)
        return build_response([items[name] for name in expected], metadata={"seconds": seconds})

    async def read(self, commands: Mapping[str, str]) -> StandardResponse:
        """Send each device its read (already allow-listed) in parallel; one item per device,
        the output as its result. Nothing is locked: a read changes nothing."""
        started = time.monotonic()
        known, unknown = await self._lookup(list(commands))
        items = {name: self._unknown(name) for name in unknown}
        if known:
            job = ReadJob({name: commands[name] for name in known}, self._timeouts)
            results = await self._run(list(known.values()), read_command, job=job)
            items |= {name: response_item(name, results[name], self._say) for name in known}
        seconds = round(time.monotonic() - started, 3)
        return build_response([items[name] for name in commands], metadata={"seconds": seconds})

    async def rollback_plan(
        self, change_id: str, pushed: Mapping[str, Sequence[str]] | None = None
    ) -> dict[str, list[str]]:
        """Lines that undo what `change_id` did on each device: from the config its push left
        ("after" backup) back to the one before it. Changes made later are kept (the params gate
        shows the lines' effect on the current config). A device without an "after" backup (the
        push broke off) is compared with its live config instead; one that cannot be read
        either is undone as if every line `pushed` to it had taken. Nothing to undo: left out.
        """
        backups = await self._backups.configs(change_id, "before")
        after = await self._backups.configs(change_id, "after")
        known, _ = await self._lookup(list(backups))
        unsaved = [device for name, device in known.items() if name not in after]
        live = await self._read_configs(unsaved) if unsaved else {}
        plan: dict[str, list[str]] = {}
        for name, device in known.items():
            current = after.get(name) or (live[name].text if live[name].ok else None)
            if current is None and pushed and name in pushed:
                current = config_with(backups[name], pushed[name], device.platform)
            if current is None:
                log.warning("rollback of %s: %s unreadable and no after-backup", change_id, name)
                continue
            lines = rollback_lines(backups[name], current, device.platform)
            if lines:
                plan[name] = lines
        return plan

    async def pushed_configs(self, change_id: str) -> dict[str, tuple[str, str]]:
        before = await self._backups.configs(change_id, "before")
        after = await self._backups.configs(change_id, "after")
        return {name: (before[name], after[name]) for name in sorted(before) if name in after}

    async def _push_locked(
        self, change_id: str, known: Mapping[str, Device], job: PushJob, notes: PushNotes
    ) -> dict[str, ResponseItem]:
        """Push to the `known` devices; those changed since the preview are left alone (what
        changed on each, and the backups stored, go into `notes`)."""
        if not known:
            return {}
        bridge = job.bridge
        nornir = self._nornir(list(known.values()))
        try:
            opened = await self._run_on(nornir, open_for_push, job=job)
            notes.drifted |= self._drift(known, opened, job.previewed)
            left_alone = {name: _drift_result(name, bridge) for name in notes.drifted}
            unchanged = {n: o for n, o in opened.items() if n not in left_alone}
            results = left_alone | await self._store_before(change_id, unchanged, bridge, notes)
            ready = [name for name in opened if name not in results]
            pushed: dict[str, DeviceResult] = {}
            if ready:
                targets = nornir.filter(filter_func=lambda host: host.name in ready)
                pushed = await self._run_on(targets, push_config, job=job)
                results |= pushed
                if job.hold:
                    self._hold([targets.inventory.hosts[n] for n, r in pushed.items() if r.ok])
                await self._store_after(change_id, pushed, notes)
        finally:
            await asyncio.to_thread(close_sessions, nornir)
            await bridge.drain()
        items = {name: response_item(name, results[name], self._say) for name in known}
        for name, result in pushed.items():
            if not result.ok:
                before = opened[name].text
                items[name]["landed"] = landed(
                    known[name], before, job.plan[name], result, self._say
                )
        return items

    def _hold(self, hosts: list[Host]) -> None:
        """Keep these sessions open for the post-checks; close them if none come in time."""
        self._held.hold(hosts)
        loop = asyncio.get_running_loop()
        loop.call_later(self._held.seconds, self._close_expired_later, loop)

    def _close_expired_later(self, loop: asyncio.AbstractEventLoop) -> None:
        task = loop.create_task(asyncio.to_thread(self._held.close_expired))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    def _drift(
        self,
        known: Mapping[str, Device],
        opened: Mapping[str, DeviceResult],
        previewed: Mapping[str, str],
    ) -> dict[str, str]:
        """Per device whose running config now differs from the one its preview was computed
        from (volatile lines aside): what changed."""
        scrub = self._credentials.scrub  # as facts() scrubbed the config the preview read
        drift = {
            name: drift_diff(known[name].platform, previewed[name], scrub(result.text))
            for name, result in opened.items()
            if result.ok and name in previewed
        }
        return {name: diff for name, diff in drift.items() if diff}

    async def _store_after(
        self, change_id: str, pushed: Mapping[str, DeviceResult], notes: PushNotes
    ) -> None:
        """The "after" backups; one that cannot be stored is logged (the push happened: a
        rollback then reads the device live)."""
        after = {n: r.config_after for n, r in pushed.items() if r.config_after is not None}
        failed = await self._save(change_id, "after", after)
        for name in after.keys() - failed.keys():
            notes.stored(name, "after")

    async def _store_before(
        self,
        change_id: str,
        opened: Mapping[str, DeviceResult],
        bridge: LoopBridge,
        notes: PushNotes,
    ) -> dict[str, DeviceResult]:
        """Store the "before" backups read in phase 1; returns the devices that cannot go on."""
        failed = {name: result for name, result in opened.items() if not result.ok}
        before = {name: result.text for name, result in opened.items() if result.ok}
        unsaved = await self._save(change_id, "before", before)
        for name, exc in unsaved.items():  # the device is left alone; the others go on
            failed[name] = DeviceResult(False, failure=failure("backup", name, str(exc)))
            bridge.progress(name, "failed", failed[name].failure)
        for name in before.keys() - unsaved.keys():
            notes.stored(name, "before")
        return failed

    async def _save(
        self, change_id: str, stage: BackupStage, configs: Mapping[str, str]
    ) -> dict[str, Exception]:
        """Save the backups in one transaction (SQLite commits one at a time, ~3.5 ms each); if
        that fails, each on its own, so one device's failure leaves the others saved. Returns
        why each device's backup could not be stored."""
        try:
            await self._backups.save_configs(change_id, stage, configs)
            return {}
        except Exception:  # any storage fault: each device on its own says which failed
            log.warning("%s backups for change %s: saving them one by one", stage, change_id)
        failed: dict[str, Exception] = {}
        for name, config in configs.items():
            try:
                await self._backups.save_configs(change_id, stage, {name: config})
            except Exception as exc:
                log.exception("%s backup of %s for change %s failed", stage, name, change_id)
                failed[name] = exc
        return failed

    async def _read_configs(self, devices: list[Device]) -> dict[str, DeviceResult]:
        if not devices:
            return {}
        return await self._run(devices, read_config, timeouts=self._timeouts)

    async def _run(
        self, devices: list[Device], task: Any, **params: Any
    ) -> dict[str, DeviceResult]:
        return await self._run_on(self._nornir(devices), task, **params)

    def _nornir(self, devices: list[Device]) -> Nornir:
        return build_nornir(devices, self._credentials, self._timeouts, self._sessions)

    @staticmethod
    async def _run_on(nornir: Nornir, task: Any, **params: Any) -> dict[str, DeviceResult]:
        aggregated: AggregatedResult = await asyncio.to_thread(nornir.run, task=task, **params)
        return {name: device_result(multi[0].result) for name, multi in aggregated.items()}

    def _unknown(self, name: str) -> ResponseItem:
        return failed_item(name, self._say(failure("unknown", name)))

    async def _lookup(self, names: Sequence[str]) -> tuple[dict[str, Device], list[str]]:
        devices, _, _ = await self._inventory.load()
        by_name = {device.name: device for device in devices}
        known = {name: by_name[name] for name in names if name in by_name}
        return known, [name for name in names if name not in by_name]


def _not_checked(device: Device) -> ResponseItem:
    """A simulated device answers no routing protocol: its checks are said not run, not passed."""
    checks = DeviceChecks(
        kind="simulated", seconds=0.0, met=[], missing=[], platform=device.simulator
    )
    return ResponseItem(id=device.name, name=device.name, status="success", checks=checks)


def _drift_result(name: str, bridge: LoopBridge) -> DeviceResult:
    drifted = failure("drifted", name)
    bridge.progress(name, "failed", drifted)
    return DeviceResult(False, failure=drifted)
