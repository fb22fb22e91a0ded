"""`show … on DEVICES` (or a known question): what a read asks, on which devices (fail closed),
raw or parsed.

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
from workflow.reads.questions import question_command
from workflow.results.targets import device_kinds, select_targets

__all__ = ["ReadRequest", "question_request", "read_request"]

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
        raise ReadRefused("no_devices")
    last = found[-1]
    words, raw = device_words(text[last.end() :])
    return text[: last.start()].strip(), words, raw


def device_words(tail: str) -> tuple[list[str], bool]:
    """The device words of `R1, R2 raw`, and whether `raw` ends them."""
    words = [word for word in _SEPARATORS.split(tail.strip()) if word]
    raw = bool(words) and words[-1].casefold() == "raw"
    return (words[:-1] if raw else words), raw


def read_request(text: str, devices: list[Device], max_targets: int) -> ReadRequest:
    """The read `text` asks for on the lab's `devices`; ReadRefused (or a TargetError naming
    the known devices) when it is not an allowed read on every device it names."""
    refuse_unsafe(text.strip(" "))  # the whole message: no line break or `;` anywhere
    command, words, raw = split_request(text)
    chosen = _chosen(words, devices, max_targets)
    commands = {device.name: _allowed(device, command) for device in chosen}
    return ReadRequest(command, commands, {d.name: d.platform for d in chosen}, raw)


def question_request(topic: str, tail: str, devices: list[Device], max_targets: int) -> ReadRequest:
    """A known question (`neighbours` on `R1 R2`): each device's own command for it."""
    refuse_unsafe(tail.strip(" "))
    words, raw = device_words(tail)
    chosen = _chosen(words, devices, max_targets)
    commands = {}
    for device in chosen:
        command = question_command(topic, device.platform)
        if command is None:
            raise ReadRefused("no_question_command", topic, value=device.family, device=device.name)
        commands[device.name] = _allowed(device, command)  # the allow-list still has the say
    return ReadRequest(topic, commands, {d.name: d.platform for d in chosen}, raw)


def _chosen(words: list[str], devices: list[Device], max_targets: int) -> list[Device]:
    names = select_targets(words, device_kinds(devices), strict=True).names
    if len(names) > max_targets:
        raise ReadRefused("too_many", count=len(names), limit=max_targets)
    by_name = {device.name: device for device in devices}
    return [by_name[name] for name in names]


def _allowed(device: Device, command: str) -> str:
    try:
        return allowed_read(device.platform, command)
    except ReadRefused as refused:
        raise refused.on(device.name) from None
