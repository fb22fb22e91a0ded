"""What a simulated device is made of, as a topology describes it: interfaces, faults.

Plain data, below the vendors (`labsim.ios`, `labsim.eos` build a device's first configuration
from a `DeviceSpec`) and the topology loader (`labsim.topology`, which checks names against
the vendors and re-exports these).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

FaultKind = Literal[
    "refuse", "hang", "drop_after", "drop_at_exit", "drop_read_back", "mute_setup", "slow_start"
]
# faults without a number
SIMPLE_FAULTS: tuple[FaultKind, ...] = (
    "refuse",
    "hang",
    "drop_at_exit",
    "drop_read_back",
    "mute_setup",
)


@dataclass(frozen=True)
class Fault:
    """A misbehaviour for fault tests: `refuse` (port closed), `hang` (accepts, never answers),
    `drop_after` (applies `after` configuration lines of a session, then closes it when the
    next one arrives, without applying or answering it), `drop_at_exit` (applies every line,
    then closes the session at `end` without answering it), `drop_read_back` (once a
    configuration line has reached the device, every `show running-config` closes its session
    unanswered: the read that verifies a push, the read back after it, later reads),
    `mute_setup` (logs in and shows its prompt, then never answers a `terminal …` line: a
    session set-up the device does not take), `slow_start` (a telnet console shows its first
    prompt `after` ms late and answers what was typed meanwhile only then, as vtysh starting
    on a loaded host)."""

    kind: FaultKind
    after: int = 0


@dataclass(frozen=True)
class InterfaceSpec:
    name: str
    address: ipaddress.IPv4Interface | None = None
    description: str = ""
    enabled: bool = True
    # the address is leased by DHCP: the config says `ip address dhcp`, only the state shows it
    dhcp: bool = False


@dataclass(frozen=True)
class DeviceSpec:
    name: str
    platform: str
    interfaces: tuple[InterfaceSpec, ...] = ()
    vlans: Mapping[int, str] = field(default_factory=dict)
    data: Mapping[str, Any] = field(default_factory=dict)
    fault: Fault | None = None
    reject: tuple[str, ...] = ()


def parse_fault(value: object) -> Fault | None:
    """`refuse`, `hang`, `drop_at_exit`, `drop_read_back`, `{drop_after: N}`, `{slow_start: MS}`
    (or a Fault) -> Fault; None stays None."""
    if value is None or isinstance(value, Fault):
        return value
    simple = next((kind for kind in SIMPLE_FAULTS if kind == value), None)
    if simple is not None:
        return Fault(simple)
    if isinstance(value, Mapping) and len(value) == 1:
        kind, after = next(iter(value.items()))
        if kind in ("drop_after", "slow_start") and isinstance(after, int) and after >= 0:
            return Fault(kind, after)
    raise ValueError(
        f"unknown fault {value!r}: use refuse, hang, drop_at_exit, drop_read_back, mute_setup, "
        "{{drop_after: N}} or {{slow_start: MS}}"
    )
