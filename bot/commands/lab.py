"""The `lab` command: the inventory — each device's platform, kind, address or console and
whether it answers there now (a bounded, parallel connect: workflow.devices.reachability) —
the links with the interfaces at both ends, the nodes labbot does not use with the reason, and
the lab drawn as a picture."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from adapters.chat import Message
from bot import messages
from bot.commands.context import CommandContext, CommandHandler
from bot.commands.declaration import ChatCommand, CommandKit
from bot.commands.topology import topology_command
from bot.views.code_blocks import code_blocks, present_table
from workflow.api import LabLayout
from workflow.devices.reachability import probe
from workflow.model import Device, Link, UnusableNode
from workflow.ports import LabReader
from workflow.reads.tables import grid
from workflow.results.targets import device_kinds

__all__ = ["link_line"]


@dataclass(frozen=True)
class LabCommand:
    """`lab`: what the inventory holds and what answers, with the topology picture."""

    lab: LabReader

    async def __call__(self, ctx: CommandContext) -> None:
        devices, links, unusable = await self.lab.devices()
        answers = await probe(devices)
        message = present_inventory(devices, answers, unusable, links)
        if ctx.pictures is not None:
            title = messages.PICTURE_LAB.format(count=len(devices))
            picture = await ctx.pictures.picture(title, LabLayout.of(devices, links))
            message = replace(message, files=(picture,)) if picture else message
        await ctx.say(message)


def present_inventory(
    devices: Sequence[Device],
    answers: Mapping[str, str | None],
    unusable: Sequence[UnusableNode],
    links: Sequence[Link] = (),
) -> Message:
    """One row per device (unreachable said with why), then the links, then the nodes left out
    and why."""
    kinds = device_kinds(list(devices))
    rows = [
        dict(
            zip(
                messages.LAB_COLUMNS,
                (
                    device.name,
                    device.platform,
                    kinds[device.name][0] or "?",
                    f"{device.transport} {device.host}:{device.port}",
                    _answer(answers.get(device.name)),
                ),
                strict=True,
            )
        )
        for device in devices
    ]
    down = [name for name, why in answers.items() if why is not None]
    text = messages.LAB_INVENTORY.format(count=len(devices), up=len(devices) - len(down))
    if down:
        text += " " + messages.LAB_UNREACHABLE.format(devices=", ".join(sorted(down)))
    message = present_table(text, grid(rows, messages.LAB_MORE) if rows else messages.LAB_EMPTY)
    wired = "\n".join(link_line(link) for link in links)
    shown = code_blocks(wired, "text", messages.SECTION_LINKS) if links else []
    if unusable:
        left_out = "\n".join(f"{node.name}: {node.reason}" for node in unusable)
        shown += code_blocks(left_out, "text", messages.SECTION_UNUSABLE)
    return replace(message, blocks=(*message.blocks, *shown)) if shown else message


def link_line(link: Link) -> str:
    """`R1 eth1 — R2 eth1`: a link with the interface at each end."""
    return messages.LINK_ENDS.format(**link)


def _answer(why: str | None) -> str:
    return messages.LAB_ANSWERS if why is None else messages.LAB_NO_ANSWER.format(why=why)


def lab_handler(kit: CommandKit) -> CommandHandler:
    """The inventory with the lab's devices; without them, the picture (`topology`)."""
    return LabCommand(kit.reads.lab) if kit.reads is not None else topology_command


LAB = ChatCommand("lab", lab_handler, help=messages.HELP_LAB)
