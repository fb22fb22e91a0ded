"""Sections by effect through a real `labbot serve --http` process: signed Slack events from the
Slack Web API stand-in, templates from the OpenAI-compatible stand-in, the simulated lab. A
representative part of the hostile-LLM suite (tests/security/test_sections_chat.py): lines that
IOS runs in global configuration though written inside their sections, and whitespace and
hierarchy tricks, are refused before any gate; a clean change shows each line where it lands."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.adapters.slack.payloads import click
from tests.fakes.openai_server import OpenAIStandIn, structured
from tests.fakes.slack_api import SlackApiStandIn
from tests.security.tally import attempt
from tests.security.test_http_replays import PEOPLE, answered_by, configs, serving
from tests.security.test_sections_chat import LANDS_GLOBAL, LENIENT, WRITTEN, template


@pytest.fixture
async def slack_api() -> AsyncIterator[SlackApiStandIn]:
    async with SlackApiStandIn(users=dict(PEOPLE)) as api:
        yield api


CASES: list[tuple[str, str, list[str], str]] = [
    (f"lands global: {lands}", source, LENIENT, "is not a command of the mode it is written in")
    for source, lands in LANDS_GLOBAL[:2]
] + [(what, source, sections, why) for what, source, sections, why in WRITTEN[::2]]


async def test_hostile_templates_over_slack_are_refused_before_any_gate(
    tmp_path: Path, slack_api: SlackApiStandIn, llm: OpenAIStandIn
) -> None:
    async with serving(tmp_path, slack_api, **answered_by(llm)) as lab:
        before = configs(lab.lab)
        for what, source, sections, why in CASES:
            llm.script(structured(template(source, sections)))
            thread = await lab.slack.mention("ospf on R1", user="U1")
            ended = await lab.slack.wait_message(
                thread, lambda m: "blocked" in m.all_text or "failed" in m.all_text
            )
            shown = [m for m in lab.slack.thread(thread) if m.buttons]
            refused = not shown and configs(lab.lab) == before and why in ended.all_text
            attempt(f"sections over Slack: {what}", refused)
            assert refused, (what, ended.all_text)


async def test_the_params_gate_over_slack_shows_each_line_where_it_lands(
    tmp_path: Path, slack_api: SlackApiStandIn, llm: OpenAIStandIn
) -> None:
    source = "router ospf 1\n network 10.0.12.0 0.0.0.255 area 0\n"
    answers: list[dict[str, Any]] = [template(source, ["router ospf * / network *"])]
    llm.script(*(structured(answer) for answer in answers))
    async with serving(tmp_path, slack_api, **answered_by(llm)) as lab:
        thread = await lab.slack.mention("ospf on R1", user="U1")
        gate = await lab.slack.gate(thread, "Approve")
        await lab.slack.senders[0].interaction(click(gate, "Approve", user="U2", name="bob"))
        preview = await lab.slack.gate(thread, "Execute")
    assert "checked on a copy of 1 device(s)" in preview.all_text
    assert " network 10.0.12.0 0.0.0.255 area 0  ← router ospf 1" in preview.all_text
    assert preview.all_text.count("network 10.0.12.0 0.0.0.255 area 0") == 1
