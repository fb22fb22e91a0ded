"""The App Home tab: published on app_home_opened (views.publish) with what waits for the
person, their open changes and the recent ones; refreshed when a gate opens or closes. Through
the real bot (bolt in HTTP mode, decision service, SQLite, simulated lab), shown in Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adapters.chat import Home, HomeSection
from adapters.slack.home import MAX_BLOCKS, home_view
from tests.adapters.slack.payloads import click
from tests.adapters.slack.stack import SlackLab, slack_lab
from tests.adapters.slack.stack import open_home as published_home
from tests.fakes.slack_api import SlackApiStandIn
from tests.support.blockkit import view_html
from tests.support.browser import show


async def open_home(bot: SlackLab, user: str) -> dict[str, Any]:
    return await published_home(bot.slack, bot.api, user)


def _newer(view: dict[str, Any] | None, before: dict[str, Any] | None) -> dict[str, Any] | None:
    return view if view is not None and view is not before else None


def text_of(view: dict[str, Any]) -> str:
    return "\n".join(
        b["text"]["text"] for b in view["blocks"] if b["type"] in ("header", "section")
    )


async def test_home_shows_what_waits_and_follows_the_gates(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    async with slack_lab(tmp_path, slack_api, approvers="U2") as bot:
        thread = await bot.mention("configure ospf on all routers", user="U1")
        template = await bot.gate(thread, "Approve")
        bob = await open_home(bot, "U2")
        alice = await open_home(bot, "U1")
        await bot.slack.interaction(click(template, "Approve", user="U2", name="bob"))
        preview = await bot.gate(thread, "Execute")
        after_gate = await bot.api.wait_for(
            lambda: (
                _newer(slack_api.homes.get("U2"), bob)
                if "params step" in text_of(slack_api.homes["U2"])
                else None
            ),
            within=30,
        )
        await bot.slack.interaction(click(preview, "Execute", user="U2", name="bob"))
        await bot.said(thread, "pushed")
        ended = await bot.api.wait_for(
            lambda: slack_api.homes["U2"] if "— done —" in text_of(slack_api.homes["U2"]) else None,
            within=30,
        )
        change = await bot.runtime.audit.latest_change_for_thread(f"slack:C1:{thread}")
    assert change is not None
    page = tmp_path / "home.html"
    page.write_text(view_html(bob, "labbot — Home (bob)"))
    shown = show(page, "slack-app-home")
    dom = shown.dom
    waiting = dom.split("Waiting for you", 1)[1].split("Your open changes", 1)[0]
    assert change.change_id in waiting and "template step" in waiting
    assert f"https://slack.com/archives/C1/p{thread.replace('.', '')}" in waiting
    assert "You have no open change." in dom  # bob asked for nothing
    assert shown.screenshot.stat().st_size > 10_000
    mine = text_of(alice).split("Your open changes", 1)[1].split("Recent changes", 1)[0]
    assert change.change_id in mine
    assert change.change_id not in text_of(alice).split("Your open changes", 1)[0]  # four-eyes
    assert "params step" in text_of(after_gate)  # refreshed when the next gate opened
    assert "Nothing waits for your decision." in text_of(ended)  # and when the change ended
    assert f"{change.change_id} — done —" in text_of(ended)


async def test_recent_changes_show_no_secret_value_typed_in_a_request(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    typed = "S3cr3t-Home-9"
    async with slack_lab(tmp_path, slack_api, approvers="U2") as bot:
        thread = await bot.mention(f"apply snmp to R1 community {typed}", user="U1")
        await bot.gate(thread, "Approve")
        bob = text_of(await open_home(bot, "U2"))
        masked = bot.runtime.service.reporter.mask.token(typed)
    recent = bob.split("Recent changes", 1)[1]
    assert "apply snmp to R1 community" in recent and masked in recent
    assert typed not in bob


def test_a_home_of_many_labs_fits_slack() -> None:
    lines = tuple(f"• chg-{n}" for n in range(20))
    home = Home(tuple(HomeSection(f"pod-{n}: waiting for you", lines, "") for n in range(30)))
    view = home_view(home)
    assert len(view["blocks"]) == MAX_BLOCKS
    assert view["blocks"][-1]["elements"][0]["text"].startswith("_… and more than fits here")
