"""The inventory part of the doctor: the hosts file (or GNS3 project) reads, every host has a
platform, an address and a login (from the file or the settings), and every owners rule names
devices of it. A broken inventory is what `labbot serve` refuses to start on."""

from __future__ import annotations

from fnmatch import fnmatchcase

from base.errors import LabbotError
from bot import messages
from bot.check.findings import Finding, fail, ok, warn
from bot.commands.lab import link_line
from bot.policy.approvers import read_owners
from bot.runtime.wiring import make_inventory
from bot.settings import Settings
from workflow.devices.inventories.static import StaticInventory
from workflow.model import Device, Link, UnusableNode

NAMES_SHOWN = 8


async def inventory_findings(settings: Settings) -> tuple[list[Device], list[Finding]]:
    """The usable devices, and what was found; a broken file is one ✗ naming file and line."""
    if not settings.inventory and not settings.gns3_url:
        return [], [fail("inventory", messages.INVENTORY_OFF)]
    try:
        inventory = make_inventory(settings)
        devices, links, unusable = await inventory.load()
    except LabbotError as exc:
        return [], [fail("inventory", str(exc), messages.INVENTORY_FIX)]
    source = str(settings.inventory) if settings.inventory else f"GNS3 {settings.gns3_url}"
    findings = [_listed(source, devices)] + ([_wired(links)] if links else [])
    broken = isinstance(inventory, StaticInventory)
    findings += [_unusable(node, broken=broken) for node in unusable]
    findings += [
        _no_login(device, settings) for device in devices if _lacks_login(device, settings)
    ]
    return devices, findings + _owners(settings, devices)


def _listed(source: str, devices: list[Device]) -> Finding:
    names = ", ".join(d.name for d in devices[:NAMES_SHOWN])
    names += "…" if len(devices) > NAMES_SHOWN else ""
    return ok(
        "inventory", messages.INVENTORY_OK.format(source=source, count=len(devices), names=names)
    )


def _wired(links: list[Link]) -> Finding:
    """The links between the devices, both ends named."""
    shown = ", ".join(link_line(link) for link in links[:NAMES_SHOWN])
    shown += "…" if len(links) > NAMES_SHOWN else ""
    return ok("links", messages.LINKS_OK.format(count=len(links), links=shown))


def _unusable(node: UnusableNode, *, broken: bool) -> Finding:
    """A hosts file's host without a platform is `broken`; a GNS3 node of no known type (a
    cloud, a switch without CLI) or a containerlab host is only said."""
    if broken:
        return fail("inventory", node.reason, messages.INVENTORY_FIX)
    return warn("inventory", f"{node.name}: {node.reason}", messages.INVENTORY_UNUSABLE_FIX)


def _lacks_login(device: Device, settings: Settings) -> bool:
    """SSH needs a login; a telnet console (GNS3, FRR's vtysh) may land at a prompt."""
    if device.platform.endswith("_telnet"):
        return False
    username = device.username or settings.device_username
    password = device.password or settings.device_password
    return not (username and password)


def _no_login(device: Device, settings: Settings) -> Finding:
    said = messages.DEVICE_NO_LOGIN.format(where=settings.inventory, name=device.name)
    return fail("login", said, messages.DEVICE_NO_LOGIN_FIX)


def _owners(settings: Settings, devices: list[Device]) -> list[Finding]:
    if not settings.owners:
        return []
    try:
        rules = read_owners(settings.owners)
    except LabbotError as exc:
        return [fail("owners", str(exc))]
    names = [device.name for device in devices]
    findings = []
    for rule in rules:
        if not any(fnmatchcase(name, rule.glob) for name in names):
            said = messages.OWNERS_NO_DEVICE.format(path=settings.owners, glob=rule.glob)
            fix = messages.OWNERS_NO_DEVICE_FIX.format(names=", ".join(names[:NAMES_SHOWN]))
            findings.append(fail("owners", said, fix))
    if findings:
        return findings
    return [ok("owners", messages.OWNERS_OK.format(path=settings.owners, count=len(rules)))]
