"""What differs between vendors: prompts, sub-modes, vocabularies, rendering, show commands.

Each vendor module (`labsim.ios`, `labsim.eos`) builds one `Platform`; the CLI engine
(`labsim.cli`) is written once against this description.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from base.grammar import Grammar
from labsim.configtree import ConfigNode, TreeRules

if TYPE_CHECKING:
    from labsim.device import SimDevice
    from labsim.topology import DeviceSpec


@dataclass
class Mode:
    """One level of a session's mode stack."""

    id: str  # user, enable, config (GLOBAL), or a sub-mode id such as "if"
    label: str = ""  # text between the prompt's parentheses
    node: ConfigNode | None = None  # the section edited in this mode


ShowHandler = Callable[["SimDevice", list[str]], str]  # (device, argument words) -> output


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
    show_run_header: Callable[[SimDevice, str], str]  # (device, config body) -> header
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
