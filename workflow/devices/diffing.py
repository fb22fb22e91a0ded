"""Configuration diffs and rollbacks, computed by hier_config (pure functions, no I/O).

hier_config knows each vendor's hierarchy, negation (`no ...`) and ordering rules, which a
line-based diff does not: a rollback of `router ospf 1` must be `no router ospf 1`, not the
removal of each child line.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from hier_config import HConfig, HConfigChild, Platform, get_hconfig
from hier_config.constructors import get_hconfig_driver
from hier_config.models import IdempotentCommandsRule, MatchRule
from hier_config.platforms.driver_base import HConfigDriverBase

from workflow.devices.normalize import ShownLine, expand, normalize_text, shown_line
from workflow.devices.volatile import stable_config
from workflow.model import platform_family

__all__ = ["landed_paths", "preview_diff"]

# netmiko family -> hier_config platform; anything else is parsed as indentation-only GENERIC.
HIER_PLATFORMS: dict[str, Platform] = {
    "cisco_ios": Platform.CISCO_IOS,
    "cisco_xe": Platform.CISCO_IOS,
    "cisco_nxos": Platform.CISCO_NXOS,
    "cisco_xr": Platform.CISCO_XR,
    "arista_eos": Platform.ARISTA_EOS,
    "juniper_junos": Platform.JUNIPER_JUNOS,
    "vyos": Platform.VYOS,
    "huawei": Platform.HUAWEI_VRP,
    "huawei_vrp": Platform.HUAWEI_VRP,
    "hp_comware": Platform.HP_COMWARE5,
    "hp_procurve": Platform.HP_PROCURVE,
    "fortinet": Platform.FORTINET_FORTIOS,
    "ruckus_fastiron": Platform.RUCKUS_FASTIRON,
    "frr": Platform.CISCO_IOS,  # vtysh is IOS-like; its `exit` lines are dropped before parsing
}
# Families whose running config closes every section with `exit`, which hier_config would read
# as repeated top-level lines.
EXIT_LINE_FAMILIES = frozenset({"frr"})


def hier_platform(platform: str) -> Platform:
    """The hier_config platform for a netmiko device_type (cisco_ios_telnet -> CISCO_IOS)."""
    return HIER_PLATFORMS.get(platform_family(platform), Platform.GENERIC)


# `banner motd ^text^` on one line: hier_config only reads banners spread over lines.
ONE_LINE_BANNER = re.compile(r"^(banner \S+) (\S)(.*)\2\s*$")


def _banners_on_lines(text: str) -> str:
    """`banner motd ^Hi^` -> `banner motd ^C` / `Hi` / `^C`, the form IOS shows and hier_config
    parses (it refuses the one-line form)."""
    lines: list[str] = []
    for line in text.splitlines():
        match = ONE_LINE_BANNER.match(line)
        lines.extend([f"{match[1]} ^C", match[3], "^C"] if match else [line])
    return "\n".join(lines)


def _parse(platform: str, text: str, driver: HConfigDriverBase | None = None) -> HConfig:
    if platform_family(platform) in EXIT_LINE_FAMILIES:
        text = "\n".join(_without_mode_lines(text.splitlines()))
    return get_hconfig(driver or hier_platform(platform), _banners_on_lines(text))


@functools.cache
def _landing_driver(platform: Platform) -> HConfigDriverBase:
    """hier_config's driver, knowing the lines an IOS-like device holds once (a new value
    replaces the old one): its IOS rules know few of them, its EOS rules (the same commands)
    many more, and FRR writes `ospf router-id`."""
    driver = get_hconfig_driver(platform)
    if platform is Platform.CISCO_IOS:
        driver.rules.idempotent_commands.extend(
            [
                *get_hconfig_driver(Platform.ARISTA_EOS).rules.idempotent_commands,
                IdempotentCommandsRule(
                    match_rules=(
                        MatchRule(startswith="router ospf"),
                        MatchRule(startswith="ospf router-id"),
                    )
                ),
            ]
        )
    return driver


def preview_diff(running: str, lines: Sequence[str], platform: str) -> str:
    """What `lines` would change in `running`, as +/- lines; "" when they change nothing."""
    current = _parse(platform, running)
    future = current.future(_parse(platform, "\n".join(lines)))
    return "\n".join(current.unified_diff(future))


def rollback_lines(backup: str, current: str, platform: str) -> list[str]:
    """Configuration lines that bring a device from `current` back to `backup`."""
    remediation = _parse(platform, current).config_to_get_to(_parse(platform, backup))
    return list(remediation.set_order_weight().dump_simple(sectional_exiting=True))


def landed_paths(before: str, after: str, platform: str) -> list[list[str]]:
    """Where a change landed, in the device's own view of its configuration: the path (headers,
    then the line) of each line `after` holds that `before` did not, and of each line it no
    longer holds as `no <line>` (a removed section once; a line replaced by its new value, as
    `hostname R9` replaces `hostname R1`, only as that new line). Lines the platform changes by
    itself (`workflow.devices.volatile`) are left out."""
    driver = _landing_driver(hier_platform(platform))
    old_config = _parse(platform, stable_config(platform, before), driver)
    new_config = _parse(platform, stable_config(platform, after), driver)
    old, new = _paths(old_config), set(_paths(new_config))
    added = [list(path) for path in _paths(new_config) if path not in set(old)]
    gone = set(old) - new
    removed = [
        [*path[:-1], f"no {path[-1]}"]
        for path, child in zip(old, old_config.all_children(), strict=True)
        if path in gone and path[:-1] not in gone and not _replaced(child, new_config, path[:-1])
    ]
    return added + removed


def _paths(config: HConfig) -> list[tuple[str, ...]]:
    """Every line's path (headers, then the line), in the order the device shows them."""
    return [tuple(a.text for a in child.lineage()) for child in config.all_children()]


def _replaced(child: HConfigChild, config: HConfig, parents: Sequence[str]) -> bool:
    """`child` has a sibling under `parents` in `config` that takes its place (same key)."""
    node: HConfig | HConfigChild | None = config
    for text in parents:
        node = node.get_child(equals=text) if node is not None else None
    return node is not None and child.is_idempotent_command(node.children)


# Lines that move between CLI modes; they never appear in a running config.
MODE_LINES = frozenset({"exit", "end", "!", "exit-address-family", "exit-vrf"})


def missing_lines(running: str, lines: Sequence[str], platform: str = "") -> list[str]:
    """Pushed lines the running config does not reflect, each with its parent path.

    A line is present when the device shows it under the same parents, in the form `platform`
    shows it (`workflow.devices.normalize`: expanded abbreviations, hashed secrets, FRR's
    rewrites); a `no X` line is present when no `X` (nor `X ...`) is left under its parents.
    Both sides are parsed by indentation only (GENERIC): vendor drivers drop lines they deem
    defaults (`no ip address`), and verification must see exactly what was sent.
    """
    return [line for line, held in line_presence(running, lines, platform) if not held]


def line_presence(running: str, lines: Sequence[str], platform: str = "") -> list[tuple[str, bool]]:
    """Each pushed line (with its parent path, `vlan 42 > name LABTEST`) and whether the
    running config holds it, as `missing_lines` decides; mode changes are not lines."""
    shown = [normalize_text(line) for line in running.splitlines()]
    config = literal_config(shown)
    intended = [normalize_text(expand(platform, line)) for line in lines]
    presence: list[tuple[str, bool]] = []
    for child in literal_config(intended).all_children_sorted():
        parents = [ancestor.text for ancestor in child.lineage()][:-1]
        held = _present(config, shown_line(platform, parents, child.text))
        presence.append((" > ".join([*parents, child.text]), held))
    return presence


def config_with(running: str, lines: Sequence[str], platform: str) -> str:
    """`running` as it would be had every one of `lines` taken (what a rollback must undo when
    the device cannot say which did)."""
    current = _parse(platform, running)
    future = current.future(_parse(platform, "\n".join(lines)))
    return "\n".join(future.dump_simple(sectional_exiting=False))


def literal_config(lines: Sequence[str]) -> HConfig:
    """Parse by indentation only (any vendor), without comments and mode changes: they repeat,
    and hier_config refuses duplicate siblings."""
    return get_hconfig(Platform.GENERIC, _banners_on_lines("\n".join(_without_mode_lines(lines))))


def _without_mode_lines(lines: Sequence[str]) -> list[str]:
    return [
        line
        for line in lines
        if line.strip() not in MODE_LINES and not line.lstrip().startswith("!")
    ]


def _present(config: HConfig, line: ShownLine) -> bool:
    node: HConfig | HConfigChild | None = config
    for parent in line.parents:
        node = node.get_child(equals=parent) if node is not None else None
    if node is None:
        return False
    text = line.text
    if line.prefix:
        return node.get_child(startswith=text) is not None
    if not text.startswith("no "):
        return node.get_child(equals=text) is not None
    negated = text.removeprefix("no ")
    return (
        node.get_child(equals=negated) is None and node.get_child(startswith=negated + " ") is None
    )
