"""The `topology` command: the lab drawn from the inventory's links, each labelled with its
interfaces and subnet from the devices' facts and coloured by the OSPF sessions over it now, as
a picture."""

from __future__ import annotations

from adapters.chat import Message
from bot import messages
from bot.commands.context import CommandContext
from bot.commands.declaration import ChatCommand, always


async def topology_command(ctx: CommandContext) -> None:
    picture = None
    if ctx.pictures is not None:
        lab, running = await ctx.pictures.read_running()
        title = messages.PICTURE_LAB.format(count=len(lab.devices))
        picture = await ctx.pictures.picture(title, lab, running=running)
    if picture is None:
        await ctx.say(Message(messages.NO_PICTURE, level="warning"))
        return
    await ctx.say(Message(picture.alt, files=(picture,)))


TOPOLOGY = ChatCommand("topology", always(topology_command), help=messages.HELP_TOPOLOGY)
