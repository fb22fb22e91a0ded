"""The App Home with many labs: what waits for a person, grouped by lab, each lab judged by its
own people. Two simulated labs with the same router names behind one bot in Slack (the stand-in,
views.publish): red's approver sees red's waiting change only, the approver of both sees both
labs' sections, the requester their open change in each; a gate moving on in one lab refreshes
the home with every lab in it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.adapters.slack.stack import open_home as published_home
from tests.bot.labs.slack_labs import SlackLabs, slack_labs
from tests.fakes.slack_api import SlackApiStandIn
from tests.support.blockkit import view_html
from tests.support.browser import keep_for_docs, show
from tests.support.two_labs import DEVICE_LOGIN, two_labs

LABS = """\
labs:
  red:
    inventory: red/hosts.yaml
    slack: C0RED
    approvers: [U0ANN, U0TEACH]
  blue:
    inventory: blue/hosts.yaml
    slack: C0BLUE
    approvers: [U0BEN, U0TEACH]
"""
CHANNELS = {"red": "C0RED", "blue": "C0BLUE"}


async def open_home(bot: SlackLabs, user: str) -> dict[str, list[str]]:
    """`user` opens the bot's App Home; its sections as published (title -> lines)."""
    return sections(await published_home(bot.slack, bot.api, user, within=60))


def sections(view: dict[str, Any]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for block in view["blocks"]:
        if block["type"] == "header":
            lines = found.setdefault(block["text"]["text"], [])
        elif block["type"] == "section":
            lines.append(block["text"]["text"])
    return found


async def test_the_home_shows_each_lab_of_the_person(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    async with (
        two_labs(tmp_path),
        slack_labs(tmp_path, slack_api, LABS, **DEVICE_LOGIN) as bot,
    ):
        made, gates = {}, {}
        for lab, channel in CHANNELS.items():
            thread = await bot.mention(channel, "configure ospf on all routers", user="U1")
            gates[lab] = await bot.gate(channel, thread, "Approve")
            change = await bot.router.runtimes[lab].audit.latest_change_for_thread(
                f"slack:{channel}:{thread}"
            )
            assert change is not None and change.lab == lab
            made[lab] = change.change_id

        ann = await open_home(bot, "U0ANN")
        assert list(ann) == ["red: waiting for you"], ann
        (line,) = ann["red: waiting for you"]
        assert made["red"] in line and "template step" in line
        assert made["blue"] not in str(ann)

        teach = await open_home(bot, "U0TEACH")
        assert list(teach) == ["red: waiting for you", "blue: waiting for you"], teach
        for lab, other in (("red", "blue"), ("blue", "red")):
            (line,) = teach[f"{lab}: waiting for you"]
            assert made[lab] in line and made[other] not in line

        page = tmp_path / "home.html"
        page.write_text(view_html(bot.api.homes["U0TEACH"], "labbot — Home (teach)"))
        on_screen = await asyncio.to_thread(show, page, "slack-app-home-labs")
        red_part, blue_part = on_screen.dom.split("blue: waiting for you", 1)
        assert "red: waiting for you" in red_part and made["red"] in red_part
        assert made["blue"] in blue_part and made["red"] not in blue_part
        keep_for_docs(on_screen.screenshot, "slack-app-home-labs.png")

        asker = await open_home(bot, "U1")  # among no lab's people: their own changes
        assert asker == {
            "red: waiting for you": ["_Nothing waits for your decision._"],
            "red: your open changes": [asker["red: your open changes"][0]],
            "blue: waiting for you": ["_Nothing waits for your decision._"],
            "blue: your open changes": [asker["blue: your open changes"][0]],
        }
        assert made["red"] in asker["red: your open changes"][0]
        assert made["blue"] in asker["blue: your open changes"][0]

        nobody = await open_home(bot, "U0ZED")
        assert nobody == {
            "Your labs": ["_Nothing waits for you in any lab, and you are among no lab's people._"]
        }

        # red's gate moves on: the home is published again, with both labs in it
        shown = bot.api.homes["U0TEACH"]
        await bot.press(gates["red"], "Approve", user="U0TEACH", name="teach")
        moved = await bot.api.wait_for(
            lambda: (
                sections(bot.api.homes["U0TEACH"])
                if bot.api.homes["U0TEACH"] is not shown
                and "params step" in str(sections(bot.api.homes["U0TEACH"]))
                else None
            ),
            within=120,
        )
        assert list(moved) == ["red: waiting for you", "blue: waiting for you"], moved
        assert "params step" in moved["red: waiting for you"][0]
        assert made["blue"] in moved["blue: waiting for you"][0]
