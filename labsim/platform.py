"""What differs between vendors: prompts, sub-modes, vocabularies, rendering, show commands.

Each vendor module (`labsim.ios`, `labsim.eos`) builds one `Platform`; the CLI engine
(`labsim.cli`) is written once against this description. A platform's show handlers read a
device through `DeviceView`, which `labsim.device.SimDevice` (above the vendors) fulfils.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from base.grammar import Grammar
from labsim.configtree import ConfigNode, TreeRules
from labsim.spec import DeviceSpec


@dataclass
class Mode:
    """One level of a session's mode stack."""

    id: str  # user, enable, config (GLOBAL), or a sub-mode id such as "if"
    label: str = ""  # text between the prompt's parentheses
    node: ConfigNode | None = None  # the section edited in this mode


@dataclass(frozen=True)
class SimInterface:
    """An interface as the running configuration describes it right now."""

    name: str
    address: ipaddress.IPv4Interface | None
    description: str
    enabled: bool
    peer: tuple[str, str] | None  # (device, interface) at the other end of a link
    leased: bool = False  # the address came by DHCP (the config says `ip address dhcp`)

    @property
    def link_up(self) -> bool:
        """Loopbacks and SVIs are up when enabled; ports need a link as well."""
        virtual = self.name.startswith(("Loopback", "Vlan", "Tunnel"))
        return self.enabled and (virtual or self.peer is not None)


class DeviceView(Protocol):
    """What show handlers and headers read of a device (`labsim.device.SimDevice`)."""

    @property
    def name(self) -> str: ...

    @property
    def hostname(self) -> str: ...

    @property
    def cli(self) -> Platform: ...

    @property
    def interfaces(self) -> list[SimInterface]: ...

    def running_config(self) -> str: ...

    def startup_config(self) -> str: ...


ShowHandler = Callable[[DeviceView, list[str]], str]  # (device, argument words) -> output


@dataclass(frozen=True)
class Platform:
    """One vendor's CLI. `name` is the netmiko family (cisco_ios, arista_eos)."""

    name: str
    rules: TreeRules
    grammar: Grammar  # its modes and what each accepts (base.grammar: closed world)
    invalid: Callable[[int], str]  # caret column -> the device's "% Invalid input" answer
    config_greeting: str  # printed by `configure terminal`
    terminal_replies: Mapping[str, str]  # `terminal length` -> "Pagination disabled."
    shows: Mapping[tuple[str, ...], ShowHandler]  # show keywords -> handler
    save_reply: str
    banner_start: Callable[[str], str | None]  # line -> closing delimiter if it opens a banner
    banner_prompt: Callable[[str], str]  # delimiter -> "Enter TEXT message..."
    initial_config: Callable[[DeviceSpec], str]
    show_run_header: Callable[[DeviceView, str], str]  # (device, config body) -> header
    address_style: str  # "mask" (10.0.0.1 255.255.255.0) or "prefix" (10.0.0.1/24)
    # show keywords -> handler of `show … | json` (EOS); a show without one refuses `| json`
    json_shows: Mapping[tuple[str, ...], ShowHandler] = field(default_factory=dict)
    # mode id -> the prompt's text for the line that opened it (default: the grammar's prompt)
    labels: Mapping[str, Callable[[str], str]] = field(default_factory=dict)

    def section_for(self, mode: str, line: str) -> Mode | None:
        """The sub-mode `line` (spelled out, accepted in `mode`) opens, if any."""
        opened = self.grammar.opened(mode, line)
        if opened is None:
            return None
        label = self.labels.get(opened.id)
        return Mode(opened.id, label(line) if label else opened.prompt)

    def canonical_interface(self, name: str) -> str:
        """`gi0/0` -> `GigabitEthernet0/0`, `et1` -> `Ethernet1`; unknown names unchanged."""
        return self.grammar.canonical_interface(name)


def expand_word(word: str, words: frozenset[str]) -> str | None:
    """The one vocabulary word `word` abbreviates (`int` -> `interface`), else None."""
    if word in words:
        return word
    candidates = [known for known in words if known.startswith(word)]
    return candidates[0] if len(candidates) == 1 else None


def ios_style_invalid(column: int) -> str:
    """IOS points a caret at the first character it could not parse."""
    return " " * column + "^\n% Invalid input detected at '^' marker.\n"
