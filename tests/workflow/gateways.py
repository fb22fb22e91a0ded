"""`RecordingGateway`: a DeviceGateway test double that keeps configs in memory and records pushes.

It implements the `workflow.ports.DeviceGateway` Protocol the way the real gateway behaves from
the workflow's side: facts are read from each running config; a push saves each config (for
rollbacks), merges the lines into it with hier_config, reports progress per device and returns
a standard response; rollback plans come from the same hier_config code the real one uses.
"""

from __future__ import annotations

import inspect
import ipaddress
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from hier_config import get_hconfig

from workflow.devices.diffing import hier_platform, rollback_lines
from workflow.devices.facts import device_interfaces
from workflow.devices.interface_state import StateRead, state_command
from workflow.model import (
    Device,
    DeviceFacts,
    Link,
    ProgressCallback,
    PushProgress,
    ResponseItem,
    StandardResponse,
    UnusableNode,
)
from workflow.postcheck_outcome import DeviceChecks, Evidence, Missing
from workflow.postchecks.evaluate import Expectation
from workflow.results.responses import build_response


@dataclass(frozen=True)
class Push:
    change_id: str
    plan: dict[str, list[str]]


@dataclass
class RecordingGateway:
    configs: dict[str, str]  # device name -> running config
    platforms: dict[str, str] = field(default_factory=dict)  # default cisco_ios_telnet
    links: list[Link] = field(default_factory=list)
    failing: set[str] = field(default_factory=set)  # devices whose push fails
    pushes: list[Push] = field(default_factory=list)
    backups: dict[str, dict[str, str]] = field(default_factory=dict)  # change -> device -> config
    afters: dict[str, dict[str, str]] = field(default_factory=dict)  # the same, after the push
    unconverged: dict[str, Evidence] = field(default_factory=dict)  # device -> why all unmet
    checked: list[dict[str, list[Expectation]]] = field(default_factory=list)  # post-check calls
    reads: list[dict[str, str]] = field(default_factory=list)  # read calls: device -> command
    # device -> what its interfaces' state read showed (else its config alone, as unread)
    states: dict[str, str] = field(default_factory=dict)

    def platform(self, name: str) -> str:
        return self.platforms.get(name, "cisco_ios_telnet")

    async def devices(self) -> tuple[list[Device], list[Link], list[UnusableNode]]:
        devices = [
            Device(name=name, platform=self.platform(name), host="127.0.0.1", port=0)
            for name in sorted(self.configs)
        ]
        return devices, list(self.links), []

    async def facts(self, names: Sequence[str]) -> dict[str, DeviceFacts]:
        return {name: self._facts(name) for name in names}

    def _facts(self, name: str) -> DeviceFacts:
        """As the real gateway: the config's interfaces merged with the state, when shown."""
        platform = self.platform(name)
        state = self.states.get(name)
        read = None if state is None else StateRead(state_command(platform), state)
        interfaces, _ = device_interfaces(platform, self.configs[name], read)
        return DeviceFacts(
            name=name,
            platform=platform,
            family=Device(name, platform, "", 0).family,
            interfaces=interfaces,
            running_config=self.configs[name],
        )

    async def push(
        self,
        change_id: str,
        plan: Mapping[str, Sequence[str]],
        on_progress: ProgressCallback | None = None,
        previewed: Mapping[str, str] | None = None,
        hold_sessions: bool = False,
    ) -> StandardResponse:
        self.pushes.append(Push(change_id, {d: list(lines) for d, lines in plan.items()}))
        self.backups[change_id] = {d: self.configs[d] for d in plan}
        items: list[ResponseItem] = []
        for done, (name, lines) in enumerate(sorted(plan.items()), start=1):
            await _tell(on_progress, PushProgress(name, "started", total=len(plan), done=done - 1))
            if name in self.failing:
                items.append(ResponseItem(id=name, name=name, status="failed", error="timed out"))
                await _tell(on_progress, PushProgress(name, "failed", "timed out", done, len(plan)))
                continue
            self.configs[name] = apply_lines(self.configs[name], lines, self.platform(name))
            self.afters.setdefault(change_id, {})[name] = self.configs[name]
            items.append(
                ResponseItem(id=name, name=name, status="success", result="\n".join(lines))
            )
            await _tell(on_progress, PushProgress(name, "done", done=done, total=len(plan)))
        return build_response(items)

    async def post_check(
        self,
        expected: Mapping[str, Sequence[Expectation]],
        wait_seconds: float,
        on_progress: ProgressCallback | None = None,
    ) -> StandardResponse:
        """Devices in `unconverged` miss all they must show, for the reason given, after
        `wait_seconds`; the others show it at once."""
        self.checked.append({name: list(items) for name, items in expected.items()})
        items: list[ResponseItem] = []
        for name, wanted in expected.items():
            facts = [e.fact() for e in wanted]
            if name in self.unconverged:
                why = self.unconverged[name]
                missing = [Missing(fact=fact, evidence=why, seen=[]) for fact in facts]
                checks = DeviceChecks(
                    kind="failed", seconds=wait_seconds, met=[], missing=missing, platform=""
                )
                items.append(ResponseItem(id=name, name=name, status="failed", checks=checks))
            else:
                checks = DeviceChecks(
                    kind="passed", seconds=0.0, met=facts, missing=[], platform=""
                )
                items.append(ResponseItem(id=name, name=name, status="success", checks=checks))
        return build_response(items)

    async def read(self, commands: Mapping[str, str]) -> StandardResponse:
        """`show running-config` answers the running config; other reads answer nothing."""
        self.reads.append(dict(commands))
        return build_response(
            [
                ResponseItem(id=name, name=name, status="success", result=self._answer(name, cmd))
                for name, cmd in commands.items()
            ]
        )

    def _answer(self, name: str, command: str) -> str:
        return self.configs[name] if command == "show running-config" else ""

    async def pushed_configs(self, change_id: str) -> dict[str, tuple[str, str]]:
        after = self.afters.get(change_id, {})
        before = self.backups.get(change_id, {})
        return {name: (before[name], config) for name, config in sorted(after.items())}

    async def rollback_plan(
        self, change_id: str, pushed: Mapping[str, Sequence[str]] | None = None
    ) -> dict[str, list[str]]:
        return {
            name: rollback_lines(backup, self.configs[name], self.platform(name))
            for name, backup in self.backups.get(change_id, {}).items()
        }


def apply_lines(running: str, lines: Sequence[str], platform: str) -> str:
    """The running config after `lines`, merged (and `no ...` applied) the way a device does."""
    current = get_hconfig(hier_platform(platform), running)
    future = current.future(get_hconfig(hier_platform(platform), "\n".join(lines)))
    return "\n".join(future.dump_simple()) + "\n"


async def _tell(on_progress: ProgressCallback | None, event: PushProgress) -> None:
    if on_progress is not None:
        delivered = on_progress(event)
        if inspect.isawaitable(delivered):
            await delivered


def ios_config(name: str, *interfaces: tuple[str, str]) -> str:
    """A small IOS running config: hostname and interfaces as (name, "A.B.C.D/len" or "")."""
    lines = [f"hostname {name}"]
    for iface, address in interfaces:
        lines.append(f"interface {iface}")
        if address:
            ip, mask = ipaddress.ip_interface(address).with_netmask.split("/")
            lines.append(f" ip address {ip} {mask}")
        else:
            lines.append(" no ip address")
    return "\n".join(lines) + "\n"


def two_router_lab() -> RecordingGateway:
    """R1 and R2 joined on 10.0.12.0/24, each with a loopback."""
    return RecordingGateway(
        configs={
            "R1": ios_config(
                "R1", ("GigabitEthernet0/0", "10.0.12.1/24"), ("Loopback0", "1.1.1.1/32")
            ),
            "R2": ios_config(
                "R2", ("GigabitEthernet0/0", "10.0.12.2/24"), ("Loopback0", "2.2.2.2/32")
            ),
        },
        links=[
            Link(
                a_device="R1",
                a_interface="GigabitEthernet0/0",
                b_device="R2",
                b_interface="GigabitEthernet0/0",
            )
        ],
    )
