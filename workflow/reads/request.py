"""`show … on DEVICES`: what a read asks, on which devices (fail closed), raw or parsed.

The devices follow the LAST standalone word "on"; every word after it must select devices (a
name, a glob, a kind, `all`) — a stray word is refused, never dropped. A trailing `raw` asks for
the device's text instead of a parsed table. More devices than the target cap are refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from base.errors import ReadRefused
from workflow.model import Device
from workflow.reads.allowlist import allowed_read, refuse_unsafe
from workflow.targets import device_kinds, select_targets

_ON = re.compile(r"(?<=\s)on\s+", re.IGNORECASE)  # overlapping: `include on on R1`
_SEPARATORS = re.compile(r"[ ,]+")


@dataclass(frozen=True)
class ReadRequest:
    """What to send to each device (the allow-listed form per platform) and how to show it."""

    asked: str  # the command as the person typed it
    commands: dict[str, str]  # device -> command sent
    platforms: dict[str, str]  # device -> platform
    raw: bool = False


def split_request(text: str) -> tuple[str, list[str], bool]:
    """(command, device words, raw) of `show … on DEVICES [raw]`."""
    found = list(_ON.finditer(text))
    if not found:
        raise ReadRefused("say which devices: `show ip route on R1,R2` (or `on all routers`)")
    last = found[-1]
    words = [word for word in _SEPARATORS.split(text[last.end() :].strip()) if word]
    raw = bool(words) and words[-1].casefold() == "raw"
    return text[: last.start()].strip(), words[:-1] if raw else words, raw


def read_request(text: str, devices: list[Device], max_targets: int) -> ReadRequest:
    """The read `text` asks for on the lab's `devices`; ReadRefused (or a TargetError naming
    the known devices) when it is not an allowed read on every device it names."""
    refuse_unsafe(text.strip(" "))  # the whole message: no line break or `;` anywhere
    command, words, raw = split_request(text)
    selection = select_targets(words, device_kinds(devices), strict=True)
    names = selection.names
    if len(names) > max_targets:
        raise ReadRefused(
            f"{len(names)} devices is more than the {max_targets} a read may ask at once "
            "(LABBOT_MAX_TARGETS); name fewer"
        )
    by_name = {device.name: device for device in devices}
    commands = {name: _allowed(by_name[name], command) for name in names}
    platforms = {name: by_name[name].platform for name in names}
    return ReadRequest(command, commands, platforms, raw)


def _allowed(device: Device, command: str) -> str:
    try:
        return allowed_read(device.platform, command)
    except ReadRefused as refused:
        raise ReadRefused(f"{device.name}: {refused}") from None
