"""Many labs on one bot in Slack (the stand-in): a labs file, the adapter in HTTP mode, the
router over each lab's runtime; helpers to speak in a channel and wait for what is said there.
Shared by the router's tests, the pods on GNS3 and the agents' labs."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adapters.slack.adapter import SlackAdapter
from bot.runtime.lab_router import LabRouter, open_lab_router
from bot.settings import Settings, load_settings
from tests.adapters.slack.payloads import click, mention
from tests.adapters.slack.serving import http_adapter, running
from tests.fakes.slack_api import BOT_TOKEN, SIGNING_SECRET, Posted, SlackApiStandIn, SlackSender


@dataclass
class InChannels:
    """People speaking in the stand-in's channels and pressing buttons, and what is said there."""

    api: SlackApiStandIn
    slack: SlackSender

    async def mention(self, channel: str, text: str, *, user: str = "U1", thread: str = "") -> str:
        """Say "@labbot TEXT" in `channel` (in a thread when given); the thread's ts."""
        body = mention(text, user=user, channel=channel, thread_ts=thread)
        status, _ = await self.slack.event(body)
        assert status == 200
        return thread or str(body["event"]["ts"])

    async def gate(self, channel: str, thread: str, label: str) -> Posted:
        def offered() -> Posted | None:
            return next(
                (
                    m
                    for m in self.api.thread(channel, thread)
                    if any(b["text"]["text"] == label for b in m.buttons)
                ),
                None,
            )

        return await self.api.wait_for(offered, within=120)

    async def said(self, channel: str, thread: str, words: str, within: float = 120) -> Posted:
        return await self.api.wait_for(
            lambda: next(
                (m for m in self.api.thread(channel, thread) if words in m.all_text), None
            ),
            within=within,
        )

    async def press(self, gate: Posted, label: str, *, user: str, name: str) -> None:
        status, _ = await self.slack.interaction(click(gate, label, user=user, name=name))
        assert status == 200


@dataclass
class SlackLabs(InChannels):
    adapter: SlackAdapter
    router: LabRouter
    settings: Settings


@contextlib.asynccontextmanager
async def slack_labs(
    tmp_path: Path, api: SlackApiStandIn, labs_file: str, **settings: Any
) -> AsyncIterator[SlackLabs]:
    """labbot serving the labs of `labs_file` (written to tmp_path/labs.yaml) in Slack."""
    path = tmp_path / "labs.yaml"
    path.write_text(labs_file)
    config = load_settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'labbot.db'}",
        data_dir=tmp_path,
        slack_bot_token=BOT_TOKEN,
        slack_signing_secret=SIGNING_SECRET,
        slack_api_url=api.base_url,
        labs=path,
        **settings,
    )
    adapter = http_adapter(api)
    async with (
        open_lab_router(config, adapter) as router,
        running(adapter, router.handle),
        SlackSender(adapter.transport.url) as slack,  # type: ignore[attr-defined]
    ):
        yield SlackLabs(api, slack, adapter, router, config)
