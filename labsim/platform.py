"""What differs between vendors: prompts, sub-modes, vocabularies, rendering, show commands.

Each vendor module (`labsim.ios`, `labsim.eos`) builds one `Platform`; the CLI engine
(`labsim.cli`) is written once against this description.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from labsim.configtree import ConfigNode, TreeRules

if TYPE_CHECKING:
    from labsim.device import SimDevice
    from labsim.topology import DeviceSpec

GLOBAL = "config"  # mode id of global configuration mode


@dataclass
class Mode:
    """One level of a session's mode stack."""

    id: str  # user, enable, config (GLOBAL), or a sub-mode id such as "if"
    label: str = ""  # text between the prompt's parentheses
    node: ConfigNode | None = None  # the section edited in this mode


@dataclass(frozen=True)
class Section:
    """A configuration line that opens a sub-mode (`interface X` -> `R1(config-if)#`)."""

    opener: re.Pattern[str]
    mode: str  # mode id, the key into Platform.vocab
    label: Callable[[re.Match[str]], str]  # text inside the prompt's parentheses
    parent: str = GLOBAL


ShowHandler = Callable[["SimDevice", list[str]], str]  # (device, argument words) -> output


@dataclass(frozen=True)
class Platform:
    """One vendor's CLI. `name` is the netmiko family (cisco_ios, arista_eos)."""

    name: str
    rules: TreeRules
    sections: tuple[Section, ...]
    vocab: Mapping[str, frozenset[str]]  # mode id -> first words accepted there
    global_only: re.Pattern[str]  # lines that always leave a sub-mode for global config
    invalid: Callable[[int], str]  # caret column -> the device's "% Invalid input" answer
    config_greeting: str  # printed by `configure terminal`
    terminal_replies: Mapping[str, str]  # `terminal length` -> "Pagination disabled."
    shows: Mapping[tuple[str, ...], ShowHandler]  # show keywords -> handler
    save_reply: str
    banner_start: Callable[[str], str | None]  # line -> closing delimiter if it opens a banner
    banner_prompt: Callable[[str], str]  # delimiter -> "Enter TEXT message..."
    initial_config: Callable[[DeviceSpec], str]
    show_run_header: Callable[[SimDevice, str], str]  # (device, config body) -> header
    interface_names: tuple[str, ...]  # canonical interface type names for abbreviations
    address_style: str  # "mask" (10.0.0.1 255.255.255.0) or "prefix" (10.0.0.1/24)
    # show keywords -> handler of `show … | json` (EOS); a show without one refuses `| json`
    json_shows: Mapping[tuple[str, ...], ShowHandler] = field(default_factory=dict)

    def section_for(self, mode: str, line: str) -> tuple[Section, re.Match[str]] | None:
        """The section `line` opens when typed in `mode`, if any."""
        for section in self.sections:
            if section.parent == mode:
                match = section.opener.match(line)
                if match:
                    return section, match
        return None

    def canonical_interface(self, name: str) -> str:
        """`gi0/0` -> `GigabitEthernet0/0`, `et1` -> `Ethernet1`; unknown names unchanged."""
        match = re.match(r"^([A-Za-z-]+)\s*(\d.*)$", name)
        if not match:
            return name
        kind, number = match.group(1).lower(), match.group(2)
        for full in self.interface_names:
            if full.lower().startswith(kind):
                return full + number
        return name


# Second words that IOS and EOS both let you abbreviate (`ip add` -> `ip address`).
SECOND_WORDS = {
    first: frozenset(words.split())
    for first, words in {
        "ip": "address route ospf domain name-server access-list prefix-list http routing cef "
        "vrf helper-address mtu nat forward-protocol ssh scp",
        "router": "ospf bgp eigrp rip isis",
        "switchport": "mode access trunk",
        "snmp-server": "community location contact host",
        "logging": "host buffered trap console source-interface synchronous",
        "spanning-tree": "mode portfast bpduguard vlan",
    }.items()
}


def expand_words(words: list[str], vocab: frozenset[str]) -> list[str] | None:
    """Expand the first word (must be in `vocab`) and a known second word; None if unknown."""
    first = expand_word(words[0], vocab)
    if first is None:
        return None
    rest = words[1:]
    if rest and first in SECOND_WORDS:
        rest = [expand_word(rest[0], SECOND_WORDS[first]) or rest[0], *rest[1:]]
    return [first, *rest]


def expand_word(word: str, words: frozenset[str]) -> str | None:
    """The one vocabulary word `word` abbreviates (`int` -> `interface`), else None."""
    if word in words:
        return word
    candidates = [known for known in words if known.startswith(word)]
    return candidates[0] if len(candidates) == 1 else None


def ios_style_invalid(column: int) -> str:
    """IOS points a caret at the first character it could not parse."""
    return " " * column + "^\n% Invalid input detected at '^' marker.\n"
