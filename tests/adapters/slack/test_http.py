"""The real bolt app in HTTP mode over a real socket, Slack's signed requests, the Web API
stand-in: what Slack (and so a person) sees of each delivery."""

from __future__ import annotations

import asyncio
import json
import time

from adapters.chat import Actor, ChatEvent, Decision, Request, ThreadRef
from adapters.slack import texts
from tests.adapters.slack.payloads import distinct_clicks, fixture, mention
from tests.adapters.slack.serving import serving_http
from tests.fakes.slack_api import SlackApiStandIn


class Recorder:
    """The bot's side: records each event; `hold` keeps handlers waiting (slow work)."""

    def __init__(self) -> None:
        self.events: list[ChatEvent] = []
        self.gate = asyncio.Event()
        self.gate.set()
        self.holding = asyncio.Event()  # a handler is waiting at the gate

    async def __call__(self, event: ChatEvent) -> None:
        self.holding.set()
        await self.gate.wait()
        self.events.append(event)


async def test_mention_is_acked_and_delivered_with_the_users_name(
    slack_api: SlackApiStandIn,
) -> None:
    bot = Recorder()
    async with serving_http(slack_api, bot) as (adapter, slack):
        status, _ = await slack.event(fixture("app_mention"))
        await adapter.idle()
    assert status == 200
    assert bot.events == [
        Request(
            ThreadRef("slack", "C1", "1699999999.000100"),
            Actor("U1", "alice"),
            "configure ospf on all routers",
        )
    ]


async def test_forged_signature_and_stale_timestamp_are_refused(
    slack_api: SlackApiStandIn,
) -> None:
    bot = Recorder()
    async with serving_http(slack_api, bot) as (adapter, slack):
        forged = await slack.event(mention("configure ntp"), secret="not-the-secret")
        stale = await slack.event(mention("configure ntp"), timestamp=int(time.time()) - 600)
        unsigned = await slack.send("{}", "application/json", timestamp=0)
        await adapter.idle()
    assert [forged[0], stale[0], unsigned[0]] == [401, 401, 401]
    assert bot.events == []


async def test_retries_of_one_event_are_handled_once(slack_api: SlackApiStandIn) -> None:
    bot = Recorder()
    body = mention("configure ntp")
    late = mention("status")  # first seen as a retry: the original never reached this replica
    async with serving_http(slack_api, bot) as (adapter, slack):
        statuses = [(await slack.event(body))[0]]
        for attempt in (1, 2):
            statuses.append((await slack.event(body, retry_num=attempt))[0])
        statuses.append((await slack.event(late, retry_num=1))[0])
        await adapter.idle()
    assert statuses == [200, 200, 200, 200]
    # Slack promises no order between deliveries, nor does the front's hand-over: each once
    assert sorted(e.text for e in bot.events if isinstance(e, Request)) == [
        "configure ntp",
        "status",
    ]


async def test_direct_messages_are_requests_and_bot_messages_are_ignored(
    slack_api: SlackApiStandIn,
) -> None:
    bot = Recorder()
    own = fixture("message_im")
    own["event_id"] = "Ev01OWN"
    own["event"] |= {"bot_id": "BBOT", "subtype": "bot_message", "user": "UBOT"}
    async with serving_http(slack_api, bot) as (adapter, slack):
        await slack.event(fixture("message_im"))
        await slack.event(own)
        await adapter.idle()
    assert bot.events == [
        Request(ThreadRef("slack", "D1", "1699999990.000200"), Actor("U1", "alice"), "help")
    ]


async def test_slash_command_opens_a_thread_and_continues_there(
    slack_api: SlackApiStandIn,
) -> None:
    bot = Recorder()
    async with serving_http(slack_api, bot) as (adapter, slack):
        status, body = await slack.command(fixture("slash_command"))
        await adapter.idle()
    assert (status, body) == (200, "")
    (opened,) = slack_api.messages.values()
    assert opened.thread_ts is None
    assert opened.text == "<@U1> asked via `/labbot`: templates"
    assert bot.events == [
        Request(ThreadRef("slack", "C1", opened.ts), Actor("U1", "alice"), "templates")
    ]


async def test_slash_command_where_the_bot_cannot_post_says_how_to_fix_it(
    slack_api: SlackApiStandIn,
) -> None:
    bot = Recorder()
    command = fixture("slash_command") | {
        "channel_id": "G1",
        "response_url": slack_api.response_url,
    }
    async with serving_http(slack_api, bot) as (adapter, slack):
        status, _ = await slack.command(command)
        await adapter.idle()
    assert status == 200 and bot.events == []
    (response,) = slack_api.responses
    assert response["response_type"] == "ephemeral"
    assert "/invite @labbot" in response["text"]


async def test_click_is_acked_before_it_is_handled(slack_api: SlackApiStandIn) -> None:
    bot = Recorder()
    bot.gate.clear()  # the decision takes "forever"
    async with serving_http(slack_api, bot) as (adapter, slack):
        started = time.perf_counter()
        status, _ = await slack.interaction(fixture("block_actions"))
        acked_after = time.perf_counter() - started
        assert (status, bot.events) == (200, [])
        bot.gate.set()
        await adapter.idle()
    assert acked_after < 0.5
    (decision,) = bot.events
    assert isinstance(decision, Decision)
    assert (decision.actor, decision.choice, decision.message_id) == (
        Actor("U2", "bob"),
        "approve",
        "1700000000.000002",
    )


async def test_past_the_backlog_people_are_told_busy_and_nothing_acked_is_lost(
    slack_api: SlackApiStandIn,
) -> None:
    bot = Recorder()
    bot.gate.clear()  # the bot's work takes its time: one delivery in hand fills it
    clicks = distinct_clicks(10, slack_api.response_url)
    async with serving_http(slack_api, bot, backlog=1) as (adapter, slack):
        statuses = [(await slack.interaction(clicks[0]))[0]]
        await bot.holding.wait()  # the front handed it over: the bot's one place is taken
        statuses += [(await slack.interaction(click))[0] for click in clicks[1:]]
        command = await slack.command(fixture("slash_command"))
        mentioned, _ = await slack.event(fixture("app_mention"))
        bot.gate.set()
        busy = await slack_api.wait_for(
            lambda: len(bot.events) + len(slack_api.responses) == 10 and slack_api.responses
        )
        await adapter.idle()
    assert statuses == [200] * 10  # each click acked at once
    assert {(r["response_type"], r["text"]) for r in busy} == {("ephemeral", texts.BUSY)}
    assert len(bot.events) + len(busy) == 10 and len(bot.events) >= 2  # each one handled or told
    assert all(isinstance(e, Decision) for e in bot.events)
    assert command[0] == 200 and json.loads(command[1])["text"] == texts.BUSY  # shown to them
    assert mentioned == 503  # not acked: Slack sends the event again


async def test_altered_button_gets_an_ephemeral_refusal(slack_api: SlackApiStandIn) -> None:
    bot = Recorder()
    payload = fixture("block_actions")
    payload["actions"][0]["value"] = "int-0001|tampered"
    async with serving_http(slack_api, bot) as (adapter, slack):
        await slack.interaction(payload)
        await adapter.idle()
    assert bot.events == []
    (note,) = slack_api.ephemerals
    assert (note["user"], note["channel"]) == ("U2", "C1")
    assert "nothing was decided" in note["text"]


async def test_modify_opens_a_modal_whose_submission_is_feedback(
    slack_api: SlackApiStandIn,
) -> None:
    bot = Recorder()
    click = fixture("block_actions")
    click["actions"][0]["action_id"] = "labbot:modify"
    async with serving_http(slack_api, bot) as (adapter, slack):
        await slack.interaction(click)
        await adapter.idle()
        (view,) = slack_api.views
        assert slack_api.called("views.open")[0].args["trigger_id"] == click["trigger_id"]
        submitted = fixture("view_submission")
        submitted["view"] |= {"id": view["id"], "private_metadata": view["private_metadata"]}
        status, body = await slack.interaction(submitted)
        await adapter.idle()
    assert (status, body) == (200, "")  # an empty ack closes the modal
    (decision,) = bot.events
    assert isinstance(decision, Decision)
    assert (decision.choice, decision.feedback, decision.actor.id) == (
        "modify",
        "use area 1 instead",
        "U2",
    )
    assert decision.thread == ThreadRef("slack", "C1", "1699999999.000100")


async def test_url_verification_challenge(slack_api: SlackApiStandIn) -> None:
    async with serving_http(slack_api, Recorder()) as (_, slack):
        status, body = await slack.event(
            {"token": "t", "challenge": "3eZbrw1aB", "type": "url_verification"}
        )
    assert (status, json.loads(body)) == (200, {"challenge": "3eZbrw1aB"})


async def test_health_check_for_load_balancers(slack_api: SlackApiStandIn) -> None:
    async with serving_http(slack_api, Recorder()) as (adapter, slack):
        assert slack.session is not None
        url = adapter.transport.url.replace("/slack/events", "/healthz")  # type: ignore[attr-defined]
        async with slack.session.get(url) as response:
            assert (response.status, await response.text()) == (200, "ok")
