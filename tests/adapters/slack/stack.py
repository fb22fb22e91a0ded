"""labbot on Slack end to end: the simulated lab, the real runtime (SQLite, library planner,
Nornir to the lab over telnet), the adapter in HTTP mode and Slack's signed requests (or in
Socket Mode, Slack's side then being the stand-in's websocket).

Shared by the end-to-end tests and bench/slack_ack.py.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from adapters.slack.adapter import SlackAdapter
from bot.cli.demo import DEMO_CREDENTIALS
from bot.runtime.wiring import Runtime, open_runtime
from bot.settings import Settings, load_settings
from labsim import Lab, demo_topology
from tests.adapters.slack.payloads import fixture, mention
from tests.adapters.slack.serving import http_adapter, running, socket_adapter
from tests.fakes.slack_api import (
    BOT_TOKEN,
    SIGNING_SECRET,
    Json,
    Posted,
    SlackApiStandIn,
    SlackSender,
    SocketSender,
)
from workflow.devices.inventories.static import StaticInventory


class SlackSide(Protocol):
    """Slack delivering to the app: over HTTP (`SlackSender`) or Socket Mode (`SocketSender`)."""

    async def event(self, body: Json) -> tuple[int, str]: ...

    async def interaction(self, payload: Json) -> tuple[int, str]: ...

    async def command(self, form: dict[str, str]) -> tuple[int, str]: ...


@dataclass
class SlackLab:
    api: SlackApiStandIn
    slack: SlackSide
    adapter: SlackAdapter
    runtime: Runtime
    lab: Lab
    settings: Settings

    async def mention(self, text: str, *, user: str = "U1", thread_ts: str = "") -> str:
        """Say "@labbot TEXT" in #C1 (in a thread when given); return the thread's ts."""
        body = mention(text, user=user, thread_ts=thread_ts)
        status, _ = await self.slack.event(body)
        assert status == 200
        return thread_ts or str(body["event"]["ts"])

    async def gate(self, thread_ts: str, label: str, *, newer_than: str = "") -> Posted:
        """Wait for a message in the thread offering the button `label` (posted after the
        message `newer_than`, when given)."""

        def offered() -> Posted | None:
            gates = [
                m
                for m in self.api.thread("C1", thread_ts)
                if m.ts > newer_than and any(b["text"]["text"] == label for b in m.buttons)
            ]
            return gates[0] if gates else None

        return await self.api.wait_for(offered, within=120)

    async def said(self, thread_ts: str, words: str) -> Posted:
        """Wait for a message in the thread whose text contains `words`."""
        return await self.api.wait_for(
            lambda: next(
                (m for m in self.api.thread("C1", thread_ts) if words in m.all_text), None
            ),
            within=60,
        )


@contextlib.asynccontextmanager
async def slack_lab(
    tmp_path: Path,
    api: SlackApiStandIn,
    *,
    socket_mode: bool = False,
    api_loop: asyncio.AbstractEventLoop | None = None,
    **settings: Any,
) -> AsyncIterator[SlackLab]:
    """`api_loop`: the loop the stand-in serves on, when it is not the caller's."""
    login = DEMO_CREDENTIALS
    async with Lab.start(
        demo_topology(3),
        username=login["username"],
        password=login["password"],
        secret=login["secret"],
    ) as lab:
        hosts = lab.write_inventory(tmp_path / "hosts.yaml", transport="telnet")
        config = load_settings(
            database_url=f"sqlite+aiosqlite:///{tmp_path / 'labbot.db'}",
            data_dir=tmp_path,
            slack_bot_token=BOT_TOKEN,
            slack_signing_secret=SIGNING_SECRET,
            slack_api_url=api.base_url,
            device_username=DEMO_CREDENTIALS["username"],
            device_password=DEMO_CREDENTIALS["password"],
            device_secret=DEMO_CREDENTIALS["secret"],
            **settings,
        )
        adapter = socket_adapter(api) if socket_mode else http_adapter(api)
        async with (
            open_runtime(config, adapter, inventory=StaticInventory(hosts)) as runtime,
            running(adapter, runtime.service.handle),
        ):
            if socket_mode:
                yield SlackLab(api, SocketSender(api, api_loop), adapter, runtime, lab, config)
                return
            async with SlackSender(adapter.transport.url) as slack:  # type: ignore[attr-defined]
                yield SlackLab(api, slack, adapter, runtime, lab, config)


async def open_home(slack: SlackSide, api: SlackApiStandIn, user: str, within: float = 30) -> Json:
    """`user` opens the bot's App Home (Slack's app_home_opened): the view published then."""
    body = fixture("app_home_opened")
    body["event"].update(user=user, channel=f"D{user}")
    body["event_id"] = f"EvHOME{user}{len(api.calls)}"
    before = api.homes.get(user)
    status, _ = await slack.event(body)
    assert status == 200
    return await api.wait_for(
        lambda: api.homes[user] if api.homes.get(user) is not before else None, within=within
    )
