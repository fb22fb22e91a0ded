"""A change from a Slack mention to configured (simulated) devices, through the real bot:
bolt in HTTP mode, the decision service, the LangGraph workflow on SQLite, Nornir over telnet."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.adapters.slack.payloads import click, fixture, submission
from tests.adapters.slack.stack import slack_lab
from tests.fakes.slack_api import SlackApiStandIn

ROUTERS = ("R1", "R2", "R3")


async def test_mention_to_pushed_change_and_audit(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    async with slack_lab(tmp_path, slack_api, approvers="U2") as bot:
        thread = await bot.mention("configure ospf on all routers")
        template = await bot.gate(thread, "Approve")
        assert template.thread_ts == thread
        assert [b["text"]["text"] for b in template.buttons] == ["Approve", "Modify", "Cancel"]

        await bot.slack.interaction(click(template, "Approve", user="U2", name="bob"))
        preview = await bot.gate(thread, "Execute")
        assert template.buttons == [] and "Approved by <@U2>" in template.all_text
        execute = next(b for b in preview.buttons if b["text"]["text"] == "Execute")
        assert execute["style"] == "primary" and execute["confirm"]

        await bot.slack.interaction(click(preview, "Execute", user="U2", name="bob"))
        summary = await bot.said(thread, "pushed")
        assert preview.buttons == [] and "Approved by <@U2>" in preview.all_text
        for router in ROUTERS:
            assert "router ospf" in bot.lab.device(router).running_config()
            assert f"✓ {router}" in summary.all_text
        progress = await bot.said(thread, "Pushing change")
        assert progress.updates >= 1  # one message, updated as devices finish

        await bot.mention("audit", thread_ts=thread)
        audit = await bot.said(thread, "Audit:")
        decided = {
            gate
            for line in audit.all_text.splitlines()
            for gate, button in (("template", "approve"), ("params", "execute"))
            if " decision " in line and " bob " in line and f"{button} at the {gate} gate" in line
        }
        assert decided == {"template", "params"}, audit.all_text  # U2 (bob) decided both


async def test_double_click_decides_once(tmp_path: Path, slack_api: SlackApiStandIn) -> None:
    async with slack_lab(tmp_path, slack_api) as bot:
        thread = await bot.mention("configure ospf on all routers")
        template = await bot.gate(thread, "Approve")
        first = click(template, "Approve", user="U2", name="bob")
        second = click(template, "Approve", user="U3", name="carol")
        await asyncio.gather(bot.slack.interaction(first), bot.slack.interaction(second))
        await bot.gate(thread, "Execute")
        await bot.adapter.idle()
    (refusal,) = slack_api.ephemerals
    assert "already approved by" in refusal["text"]
    assert template.all_text.count("Approved by") == 1


async def test_click_outside_the_allow_list_is_refused_privately(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    async with slack_lab(tmp_path, slack_api, approvers="U1,U2") as bot:
        thread = await bot.mention("configure ospf on all routers")
        template = await bot.gate(thread, "Approve")
        await bot.slack.interaction(click(template, "Approve", user="U3", name="carol"))
        await bot.adapter.idle()
        (refusal,) = slack_api.ephemerals
        assert refusal["user"] == "U3" and "not an approver" in refusal["text"]
        assert len(template.buttons) == 3  # still pending for the approvers
        await bot.mention("audit", thread_ts=thread)
        audit = await bot.said(thread, "Audit:")
    refusals = [line for line in audit.all_text.splitlines() if "carol" in line]
    assert refusals and "not an approver" in refusals[0], audit.all_text  # on record


async def test_modify_feedback_goes_back_to_the_planner(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    async with slack_lab(tmp_path, slack_api) as bot:
        thread = await bot.mention("configure ospf on all routers")
        template = await bot.gate(thread, "Approve")
        await bot.slack.interaction(click(template, "Modify", user="U2", name="bob"))
        await bot.adapter.idle()
        (view,) = slack_api.views
        await bot.slack.interaction(submission(view, "only on R1,R2", user="U2"))
        again = await bot.gate(thread, "Approve", newer_than=template.ts)
    assert template.buttons == []
    assert "Modification requested by <@U2>" in template.all_text
    assert "only on R1,R2" in template.all_text
    assert again.ts != template.ts and "for R1, R2 (named)." in again.all_text


async def test_slash_command_change_continues_in_its_own_thread(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    async with slack_lab(tmp_path, slack_api) as bot:
        command = fixture("slash_command") | {"text": "configure ospf on all routers"}
        status, _ = await bot.slack.command(command)
        assert status == 200
        opened = await slack_api.wait_for(
            lambda: next((m for m in slack_api.messages.values() if m.thread_ts is None), None)
        )
        template = await bot.gate(opened.ts, "Approve")
    assert "<@U1> asked via `/labbot`: configure ospf on all routers" in opened.text
    assert template.thread_ts == opened.ts
