"""The bolt `AsyncApp` and its listeners.

Every listener acks at once and hands the translated event to the bot in a background task:
Slack wants an answer within 3 s and a workflow step can take minutes. The app runs with
`process_before_response=True`, so bolt returns the ack as soon as the listener returns instead
of polling for it, and the background work is ours to track (`idle()` waits for it). The
listeners run on the loop of bolt's server (its own thread, behind the ack front, see
transport.py): the work always goes to the loop the adapter runs on, the bot's.
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import Future
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltContext, AsyncRespond
from slack_bolt.logger.messages import warning_client_prioritized_and_token_skipped
from slack_bolt.response import BoltResponse
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from adapters.chat import ChatEvent, EventHandler, HomeOpened, Request, ThreadRef
from adapters.slack import inbound, texts
from adapters.slack.display_names import NameCache
from adapters.slack.gate_messages import GateMessages
from adapters.slack.seen_deliveries import RecentKeys

log = logging.getLogger(__name__)

SLASH_COMMAND = "/labbot"
UNREACHABLE_CHANNEL = ("not_in_channel", "channel_not_found", "is_archived")

OpenThread = Callable[[str, str, str], Awaitable[ThreadRef]]  # channel, user id, text
# (team, delivery key) -> True the first time any replica sees it (a shared store); may raise
FirstDelivery = Callable[[str, str], Awaitable[bool]]


class Listeners:
    """Slack deliveries → neutral events for `handler`, each delivery once."""

    def __init__(
        self,
        client: AsyncWebClient,
        open_thread: OpenThread,
        shared: FirstDelivery | None = None,
        backlog: int | None = None,
        *,
        gates: GateMessages | None = None,
    ) -> None:
        self.handler: EventHandler | None = None
        self.backlog = backlog  # deliveries in hand at most; None: no bound
        self.loop: asyncio.AbstractEventLoop | None = None  # the bot's, set when the adapter runs
        self._client = client
        self._open_thread = open_thread
        self._names = NameCache(client)
        self._recent = RecentKeys()
        self._shared = shared
        self._gates = gates or GateMessages()  # the gate messages clicks show (see close_gate)
        self._pending: set[Future[None]] = set()
        self._pending_lock = threading.Lock()

    def register(self, app: AsyncApp) -> None:
        app.use(self._once)
        app.event("app_mention")(self._on_mention)
        app.event("message")(self._on_message)
        app.event("app_home_opened")(self._on_home)
        app.command(SLASH_COMMAND)(self._on_command)
        app.action(re.compile(r"^labbot:(approve|cancel)$"))(self._on_click)
        app.action("labbot:modify")(self._on_modify)
        app.view(inbound.MODIFY_CALLBACK)(self._on_feedback)

    def attach(self, handler: EventHandler) -> None:
        """Deliver events to `handler` on the calling (the bot's) event loop."""
        self.handler, self.loop = handler, asyncio.get_running_loop()

    async def idle(self) -> None:
        """Wait until every event handed over so far has been handled."""
        while True:
            with self._pending_lock:
                pending = [asyncio.wrap_future(f) for f in self._pending]
            if not pending:
                return
            await asyncio.gather(*pending, return_exceptions=True)

    # --- middleware and listeners (bolt passes arguments by name) -------------------------------

    async def _once(
        self, body: dict[str, Any], next: Callable[[], Awaitable[None]]
    ) -> BoltResponse | None:
        if self._full():  # before the key is noted: the sender tries again
            log.warning("busy: %d Slack deliveries in hand; asked for this one later", self.backlog)
            return BoltResponse(status=503, body="busy")
        key = inbound.delivery_key(body)
        if key is not None and not await self._first_time(inbound.delivery_team(body), key):
            log.info("ignoring a repeated Slack delivery %s", key)
            return BoltResponse(status=200, body="")
        await next()
        return None

    def _full(self) -> bool:
        with self._pending_lock:
            return self.backlog is not None and len(self._pending) >= self.backlog

    async def _first_time(self, team: str, key: str) -> bool:
        """Seen by no replica before: this process's memory first, then the shared store. A
        store that cannot answer lets the delivery through (the decision service then tells the
        thread the database is unreachable; a decided gate is still decided once)."""
        if not self._recent.first_time(key):
            return False
        if self._shared is None:
            return True
        try:
            return await self._shared(team, key)
        except Exception:
            log.exception("could not record the Slack delivery %s; handling it anyway", key)
            return True

    async def _on_mention(self, event: dict[str, Any], context: AsyncBoltContext) -> None:
        self._spawn(self._request(event, context.bot_user_id or ""))

    async def _on_message(self, event: dict[str, Any], context: AsyncBoltContext) -> None:
        if inbound.is_direct_message(event):
            self._spawn(self._request(event, context.bot_user_id or ""))

    async def _on_home(self, event: dict[str, Any]) -> None:
        if event.get("tab") == "home":
            self._spawn(self._home(event))

    async def _on_command(
        self, command: dict[str, Any], ack: AsyncAck, respond: AsyncRespond
    ) -> None:
        await ack()
        self._spawn(self._slash(command, respond))

    async def _on_click(self, body: dict[str, Any], ack: AsyncAck) -> None:
        await ack()
        self._spawn(self._click(body))

    async def _on_modify(self, body: dict[str, Any], ack: AsyncAck) -> None:
        await ack()
        self._spawn(self._open_modal(body))

    async def _on_feedback(self, body: dict[str, Any], ack: AsyncAck) -> None:
        await ack()  # closes the modal
        self._spawn(self._feedback(body))

    # --- background work ----------------------------------------------------------------------

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        if self.loop is None:
            work.close()
            raise RuntimeError("Slack delivery before the adapter runs")
        future = asyncio.run_coroutine_threadsafe(self._guard(work), self.loop)
        with self._pending_lock:
            self._pending.add(future)
        future.add_done_callback(self._forget)

    def _forget(self, future: Future[None]) -> None:
        with self._pending_lock:
            self._pending.discard(future)

    async def _guard(self, work: Coroutine[Any, Any, None]) -> None:
        try:
            await work
        except Exception:
            log.exception("handling a Slack delivery failed")

    async def _deliver(self, event: ChatEvent) -> None:
        assert self.handler is not None  # set with the loop, see _spawn
        await self.handler(event)

    async def _request(self, event: dict[str, Any], bot_user_id: str) -> None:
        actor = await self._names.actor(event["user"])
        await self._deliver(inbound.request_from_event(event, actor, bot_user_id))

    async def _home(self, event: dict[str, Any]) -> None:
        actor = await self._names.actor(event["user"])
        place = inbound.thread_ref(event.get("channel", ""), "")  # the App DM with the person
        await self._deliver(HomeOpened(place, actor))

    async def _slash(self, command: dict[str, Any], respond: AsyncRespond) -> None:
        user_id, user_name = inbound.payload_user(command)
        actor = await self._names.actor(user_id, user_name)
        text = inbound.mention_text(command.get("text", ""), "")
        try:
            thread = await self._open_thread(command["channel_id"], user_id, text)
        except SlackApiError as exc:
            if exc.response.get("error") not in UNREACHABLE_CHANNEL:
                raise
            await respond(text=texts.NOT_IN_CHANNEL, response_type="ephemeral")
            return
        await self._deliver(Request(thread, actor, text))

    async def _click(self, body: dict[str, Any]) -> None:
        self._gates.clicked(body)
        user_id, user_name = inbound.payload_user(body)
        actor = await self._names.actor(user_id, user_name)
        try:
            decision = inbound.decision_from_action(body, actor)
        except (ValueError, KeyError) as exc:
            log.warning("refusing a click: %s", exc)
            await self._client.chat_postEphemeral(
                channel=body["channel"]["id"], user=user_id, text=texts.BAD_BUTTON
            )
            return
        await self._deliver(decision)

    async def _open_modal(self, body: dict[str, Any]) -> None:
        self._gates.clicked(body)  # the Modify's submission closes this gate
        await self._client.views_open(trigger_id=body["trigger_id"], view=inbound.modify_view(body))

    async def _feedback(self, body: dict[str, Any]) -> None:
        user_id, user_name = inbound.payload_user(body)
        actor = await self._names.actor(user_id, user_name)
        await self._deliver(inbound.decision_from_submission(body, actor))


class _SameTokenNote(logging.Filter):
    """bolt reads SLACK_BOT_TOKEN from the environment and warns that the client's token wins;
    it is the same token (settings read the same variable), so the warning only misleads."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != warning_client_prioritized_and_token_skipped()


bolt_log = logging.getLogger("adapters.slack.bolt")
bolt_log.addFilter(_SameTokenNote())


def build_app(client: AsyncWebClient, listeners: Listeners, signing_secret: str) -> AsyncApp:
    """The bolt app; every request's signature and timestamp are verified (bolt answers 401 to
    a forged or stale one): Slack's secret in HTTP mode, the ack front's in Socket Mode."""
    app = AsyncApp(
        client=client,
        signing_secret=signing_secret,
        request_verification_enabled=True,
        process_before_response=True,
        raise_error_for_unhandled_request=False,
        logger=bolt_log,
    )
    listeners.register(app)
    return app
