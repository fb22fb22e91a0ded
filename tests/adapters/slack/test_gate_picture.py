"""A change's thread in Slack as people see it: the real bot (bolt in HTTP mode, decision service,
SQLite, library planner, simulated lab) posts its gates to the Slack stand-in, their Block Kit is
rendered to HTML and shown in Chromium. The picture is docs/img/slack-gate-thread.png
(`scripts/docs-pictures` writes it again)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.adapters.slack.payloads import click
from tests.adapters.slack.stack import slack_lab
from tests.fakes.slack_api import SlackApiStandIn
from tests.support.blockkit import thread_html
from tests.support.browser import keep_for_docs, show

REQUEST = "apply ntp to R1,R2 servers=10.0.0.1"


async def test_a_gate_thread_shows_the_template_its_decision_and_the_next_buttons(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    async with slack_lab(tmp_path, slack_api, approvers="U2") as bot:
        thread = await bot.mention(REQUEST, user="U1")
        template = await bot.gate(thread, "Approve")
        await bot.slack.interaction(click(template, "Approve", user="U2", name="bob"))
        await bot.gate(thread, "Execute")
        posted = slack_api.thread("C1", thread)
    request = [{"type": "section", "text": {"type": "mrkdwn", "text": f"<@UBOT> {REQUEST}"}}]
    messages = [("alice", request), *(("labbot", m.blocks) for m in posted)]
    page = tmp_path / "thread.html"
    page.write_text(thread_html(messages, "#lab — thread", {**slack_api.users, "UBOT": "labbot"}))
    shown = show(page, "slack-gate-thread")
    dom = shown.dom
    decided, waiting = dom.split("Step 2 of 2", 1)
    assert "Step 1 of 2" in decided and "ntp server {{ server }}" in decided
    assert "Approved by <span" in decided and "@bob</span>" in decided  # a mention, not <@U2>
    assert "<button" not in decided  # the decided step shows who decided instead
    assert '<button class="primary">Execute</button>' in waiting
    assert '<button class="danger">Cancel</button>' in waiting
    assert re.search(r"ntp server 10\.0\.0\.1 *← global", waiting)  # each line and where it lands
    assert "```" not in dom and "&amp;lt;" not in dom  # Slack markup rendered, not shown raw
    assert shown.screenshot.stat().st_size > 10_000
    keep_for_docs(shown.screenshot, "slack-gate-thread.png")
