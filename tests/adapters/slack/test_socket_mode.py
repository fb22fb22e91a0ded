"""Socket Mode (the default): the app opens the websocket, acks envelopes, delivers events."""

from __future__ import annotations

from adapters.chat import Actor, ChatEvent, Request, ThreadRef
from tests.adapters.slack.payloads import fixture
from tests.adapters.slack.serving import running, socket_adapter
from tests.fakes.slack_api import APP_TOKEN, SlackApiStandIn


async def test_socket_mode_acks_and_delivers(slack_api: SlackApiStandIn) -> None:
    events: list[ChatEvent] = []

    async def bot(event: ChatEvent) -> None:
        events.append(event)

    adapter = socket_adapter(slack_api)
    async with running(adapter, bot):
        ack = await slack_api.send_socket("events_api", fixture("app_mention"))
        click_ack = await slack_api.send_socket("interactive", fixture("block_actions"))
        await adapter.idle()
    (opened,) = slack_api.called("apps.connections.open")
    assert opened.token == APP_TOKEN
    assert ack["envelope_id"] != click_ack["envelope_id"]  # each envelope acked on its own
    assert events[0] == Request(
        ThreadRef("slack", "C1", "1699999999.000100"),
        Actor("U1", "alice"),
        "configure ospf on all routers",
    )
    assert events[1].actor == Actor("U2", "bob")
