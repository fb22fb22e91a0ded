"""The lab's picture is an extra: when Slack will not take its upload, the gate is still there
to decide (its buttons work), and the thread says in one line that the picture is missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot import messages
from tests.adapters.slack.payloads import click
from tests.adapters.slack.stack import slack_lab
from tests.fakes.slack_api import SlackApiStandIn


@pytest.mark.parametrize(
    "failing",
    [
        {"files.getUploadURLExternal": "internal_error"},  # the Web API answers an error
        {"upload": "upload failed"},  # the upload URL answers HTTP 500
    ],
)
async def test_a_picture_slack_will_not_take_leaves_the_gate_to_decide(
    tmp_path: Path, slack_api: SlackApiStandIn, failing: dict[str, str]
) -> None:
    slack_api.failing.update(failing)
    async with slack_lab(tmp_path, slack_api, approvers="U2") as bot:
        thread = await bot.mention("configure ospf on all routers")
        template = await bot.gate(thread, "Approve")
        await bot.slack.interaction(click(template, "Approve", user="U2", name="bob"))
        preview = await bot.gate(thread, "Execute")  # the gate with the picture
        note = await bot.said(thread, messages.PICTURE_NOT_ATTACHED)
        assert [b["text"]["text"] for b in preview.buttons] == ["Execute", "Modify", "Cancel"]
        assert note.ts > preview.ts and note.buttons == []

        await bot.slack.interaction(click(preview, "Execute", user="U2", name="bob"))
        # the result's tally (the post-check progress line says "pushed" too, before the result)
        summary = await bot.said(thread, "✓ 3 ✗ 0 of 3")
        assert "Approved by <@U2>" in preview.all_text

        def notes() -> list[str]:  # the gate's and the result's, each after its message
            texts = [m.all_text for m in slack_api.thread("C1", thread)]
            return texts if sum(messages.PICTURE_NOT_ATTACHED in t for t in texts) >= 2 else []

        said = await slack_api.wait_for(notes)
    assert "router ospf" in bot.lab.device("R1").running_config()
    assert "✓ R1" in summary.all_text
    assert sum(messages.PICTURE_NOT_ATTACHED in text for text in said) == 2  # no third
    assert not any(messages.UNEXPECTED in text for text in said)
    assert not any("data" in upload for upload in slack_api.uploads.values())
