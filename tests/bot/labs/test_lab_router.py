"""A channel sees its lab: two simulated labs with the same device names behind one bot in
Slack (the stand-in), each answering in its own channel (one by its id, one by its `#name`).
Changes asked in both at once are pushed each to its own lab's devices only; every audit row
names its lab; a device of another lab is unknown here; a channel that is no lab's says so."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.bot.labs.slack_labs import slack_labs
from tests.fakes.slack_api import SlackApiStandIn
from tests.support.two_labs import DEVICE_LOGIN, two_labs

LABS = """\
labs:
  red:
    inventory: red/hosts.yaml
    slack: C0RED
    approvers: [U2]
  blue:
    inventory: blue/hosts.yaml
    slack: "#blue-lab"
    approvers: [U2]
"""


async def test_each_channel_changes_its_own_lab_only(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    slack_api.channels.update({"C0BLUE": "blue-lab", "C0ELSE": "random"})
    async with (
        two_labs(tmp_path) as labs,
        slack_labs(tmp_path, slack_api, LABS, **DEVICE_LOGIN) as bot,
    ):
        channels = {"red": "C0RED", "blue": "C0BLUE"}
        threads = {
            lab: await bot.mention(channel, "configure ospf on all routers")
            for lab, channel in channels.items()
        }

        async def approve_and_execute(lab: str) -> None:
            channel, thread = channels[lab], threads[lab]
            await bot.press(
                await bot.gate(channel, thread, "Approve"), "Approve", user="U2", name="bob"
            )
            await bot.press(
                await bot.gate(channel, thread, "Execute"), "Execute", user="U2", name="bob"
            )
            await bot.said(channel, thread, "pushed")

        await asyncio.gather(*(approve_and_execute(lab) for lab in channels))
        for name, lab in labs.items():
            for device in lab.devices:
                assert "router ospf" in device.running_config(), (name, device.name)

        # a device only the red lab has is unknown in the blue lab's channel
        asked = await bot.mention("C0BLUE", "configure ntp on R3 servers=10.0.0.1")
        unknown = await bot.said("C0BLUE", asked, "there is no device 'R3'")
        assert "lab devices: R1, R2" in unknown.all_text
        assert "router ospf" in labs["red"].device("R3").running_config()

        # a channel that is no lab's says so in one line
        elsewhere = await bot.mention("C0ELSE", "configure ospf on all routers")
        (said,) = await bot.api.wait_for(lambda: bot.api.thread("C0ELSE", elsewhere) or None)
        assert "this channel is no lab's" in said.text and "\n" not in said.text

        audit = await bot.router.runtimes["red"].audit.entries()
        pushes = sorted((e.lab, e.device) for e in audit if e.kind == "push")
        assert pushes == [
            ("blue", "R1"),
            ("blue", "R2"),
            ("red", "R1"),
            ("red", "R2"),
            ("red", "R3"),
        ]
        changes = {e.change_id: e.lab for e in audit if e.kind == "change"}
        assert sorted(changes.values()) == ["blue", "blue", "red"]
        assert all(e.lab == changes[e.change_id] for e in audit if e.change_id)
        only_blue = await bot.router.runtimes["red"].audit.entries(lab="blue")
        assert {e.lab for e in only_blue} == {"blue"} and len(only_blue) < len(audit)
