"""Socket Mode (the default): the ack front holds the websocket Slack's stand-in serves, acks
each envelope by its id and hands the payload to the bot, whatever the bot is doing."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import http.client
import json
import os
import time
import urllib.parse
from pathlib import Path

import pytest

from adapters.chat import Actor, ChatEvent, Decision, Request, ThreadRef
from adapters.slack import texts
from adapters.slack.signed import signed_headers
from adapters.slack.transport import EVENTS_PATH
from base.errors import ConfigError
from tests.adapters.slack.payloads import click, distinct_clicks, fixture, mention
from tests.adapters.slack.serving import running, socket_adapter
from tests.adapters.slack.stack import slack_lab
from tests.fakes.slack_api import APP_TOKEN, PEOPLE, Json, SlackApiStandIn
from tests.fakes.slack_socket_mode import SEND, elsewhere


class Recorder:
    """The bot's side: records each event; `hold` keeps handlers waiting (slow work)."""

    def __init__(self) -> None:
        self.events: list[ChatEvent] = []
        self.hold = asyncio.Event()
        self.hold.set()
        self.holding = asyncio.Event()  # a handler is waiting

    async def __call__(self, event: ChatEvent) -> None:
        self.holding.set()
        await self.hold.wait()
        self.events.append(event)


async def test_socket_mode_acks_and_delivers(slack_api: SlackApiStandIn) -> None:
    bot = Recorder()
    adapter = socket_adapter(slack_api)
    async with running(adapter, bot):
        ack = await slack_api.send_socket("events_api", fixture("app_mention"))
        click_ack = await slack_api.send_socket("interactive", fixture("block_actions"))
        await adapter.idle()
    (opened,) = slack_api.called("apps.connections.open")
    assert opened.token == APP_TOKEN
    assert ack["envelope_id"] != click_ack["envelope_id"]  # each envelope acked on its own
    # each delivered once; in whichever order the front's forwarders hand them over
    requests = [event for event in bot.events if isinstance(event, Request)]
    assert requests == [
        Request(
            ThreadRef("slack", "C1", "1699999999.000100"),
            Actor("U1", "alice"),
            "configure ospf on all routers",
        )
    ]
    assert [event.actor for event in bot.events if isinstance(event, Decision)] == [
        Actor("U2", "bob")
    ]


def held_click(socket_side: str, payload: Json, hold: float) -> tuple[float, float, Json]:
    """Slack's side is asked to deliver a click in a moment; meanwhile this whole interpreter,
    the bot's process, is held for `hold` seconds (a C call that keeps the GIL, as a long
    computation in an extension does: no thread of the bot runs). Returns when it was held and
    what Slack's side saw (when it sent the envelope, when the ack came)."""
    url = urllib.parse.urlsplit(socket_side)
    asked = {"kind": "interactive", "payload": payload, "after": 0.5}
    connection = http.client.HTTPConnection(url.hostname or "", url.port, timeout=60)
    connection.request("POST", SEND, json.dumps(asked), {"Content-Type": "application/json"})
    held_from = time.time()
    ctypes.PyDLL(None).usleep(int(hold * 1_000_000))
    held_until = time.time()
    seen = json.loads(connection.getresponse().read())
    connection.close()
    return held_from, held_until, seen


async def test_a_click_is_acked_while_the_bot_is_held_and_decides_afterwards(
    tmp_path: Path,
) -> None:
    async with (
        elsewhere() as socket_side,  # Slack is not in the bot's interpreter
        SlackApiStandIn(users=dict(PEOPLE), socket_side=socket_side) as api,
        slack_lab(tmp_path, api, socket_mode=True) as bot,
    ):
        thread = await bot.mention("configure ospf on all routers")
        template = await bot.gate(thread, "Approve")
        approve = click(template, "Approve", user="U2", name="bob")
        held_from, held_until, seen = await asyncio.to_thread(held_click, socket_side, approve, 4)
        assert held_from < seen["sent_at"] and seen["acked_at"] < held_until  # acked meanwhile
        assert seen["ms"] < 1000
        await bot.gate(thread, "Execute")  # the click decided the gate once the bot could
        assert template.buttons == [] and "Approved by <@U2>" in template.all_text


async def test_slack_refreshing_the_connection_loses_no_envelope(
    slack_api: SlackApiStandIn,
) -> None:
    bot = Recorder()
    adapter = socket_adapter(slack_api)
    async with running(adapter, bot):
        await slack_api.send_socket("events_api", mention("status"))
        await slack_api.socket.disconnect("refresh_requested")
        await slack_api.send_socket("events_api", mention("templates"))
        await adapter.idle()
    assert len(slack_api.called("apps.connections.open")) == 2  # a new URL for the new one
    assert slack_api.socket.connections == 2
    assert [e.text for e in bot.events if isinstance(e, Request)] == ["status", "templates"]


async def test_a_retried_envelope_is_handled_once(slack_api: SlackApiStandIn) -> None:
    bot = Recorder()
    body = mention("configure ntp")
    adapter = socket_adapter(slack_api)
    async with running(adapter, bot):
        first = await slack_api.send_socket("events_api", body)
        again = await slack_api.send_socket("events_api", body, retry_attempt=1)
        await adapter.idle()
    assert first["envelope_id"] != again["envelope_id"]  # both acked: Slack stops resending
    assert [e.text for e in bot.events if isinstance(e, Request)] == ["configure ntp"]


async def test_a_refused_app_token_is_one_line_naming_it(slack_api: SlackApiStandIn) -> None:
    slack_api.app_token = "xapp-another"
    adapter = socket_adapter(slack_api)
    with pytest.raises(ConfigError) as refused:
        await adapter.run(Recorder())
    assert str(refused.value) == "SLACK_APP_TOKEN: Slack refused the app-level token (invalid_auth)"


async def test_past_the_backlog_people_are_told_busy_and_events_come_again(
    slack_api: SlackApiStandIn,
) -> None:
    bot = Recorder()
    bot.hold.clear()  # the bot's work takes its time: one delivery in hand fills it
    clicks = distinct_clicks(10, slack_api.response_url)
    adapter = socket_adapter(slack_api, backlog=1)
    async with running(adapter, bot):
        acks = [await slack_api.send_socket("interactive", clicks[0])]
        await bot.holding.wait()  # the front handed it over: the bot's one place is taken
        acks += [await slack_api.send_socket("interactive", pressed) for pressed in clicks[1:]]
        command = await slack_api.send_socket("slash_commands", fixture("slash_command"))
        with pytest.raises(TimeoutError):  # not acked: Slack sends the event again
            await slack_api.socket.send("events_api", fixture("app_mention"), within=2)
        bot.hold.set()
        busy = await slack_api.wait_for(
            lambda: len(bot.events) + len(slack_api.responses) == 10 and slack_api.responses
        )
    assert len(acks) == 10  # each click acked at once
    assert {(r["response_type"], r["text"]) for r in busy} == {("ephemeral", texts.BUSY)}
    assert len(bot.events) + len(busy) == 10 and len(bot.events) >= 2  # each handled or told
    assert command["payload"]["text"] == texts.BUSY  # shown to them in the ack


def own_listening_ports() -> set[int]:
    """The TCP ports this process listens on, found as anyone on the host finds them (/proc)."""
    sockets = set()
    for fd in Path("/proc/self/fd").iterdir():
        with contextlib.suppress(OSError):
            if (link := os.readlink(fd)).startswith("socket:["):
                sockets.add(link.removeprefix("socket:[").removesuffix("]"))
    ports = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[3] == "0A" and fields[9] in sockets:  # LISTEN
            ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def post(port: int, body: bytes, headers: dict[str, str]) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = headers | {"Content-Type": "application/x-www-form-urlencoded"}
    connection.request("POST", EVENTS_PATH, body, headers)
    status = connection.getresponse().status
    connection.close()
    return status


async def test_the_bot_s_own_server_refuses_a_click_the_front_did_not_sign(
    slack_api: SlackApiStandIn,
) -> None:
    """In Socket Mode the bot's server on 127.0.0.1 takes only what the front signed with this
    run's secret: a click posted there by anyone else on the host, unsigned or signed with
    another secret, is refused and decides nothing."""
    bot = Recorder()
    adapter = socket_adapter(slack_api)
    before = own_listening_ports()
    async with running(adapter, bot):
        (inside,) = own_listening_ports() - before
        body = urllib.parse.urlencode({"payload": json.dumps(fixture("block_actions"))}).encode()
        forged = signed_headers("another secret", body)
        statuses = [await asyncio.to_thread(post, inside, body, h) for h in ({}, forged)]
        await slack_api.send_socket("interactive", fixture("block_actions"))
        await adapter.idle()
    assert statuses == [401, 401]
    assert len(bot.events) == 1  # the click that came through Slack's socket, and only it
