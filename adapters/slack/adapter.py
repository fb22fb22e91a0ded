"""The Slack `ChatAdapter`: bolt listeners in, Web API calls out (post, update, ephemeral,
file uploads into the thread; a gate closed by `chat.update` of the blocks it was shown with)."""

from __future__ import annotations

from aiohttp import ClientError
from slack_sdk.errors import SlackClientError
from slack_sdk.http_retry.builtin_async_handlers import AsyncRateLimitErrorRetryHandler
from slack_sdk.web.async_client import AsyncWebClient

from adapters.chat import EventHandler, FilesNotAttached, Home, Message, ThreadRef
from adapters.slack import texts
from adapters.slack.app import FirstDelivery, Listeners, build_app
from adapters.slack.blocks import Rendered, render
from adapters.slack.gate_messages import GateMessages, closed
from adapters.slack.groups import UserGroups
from adapters.slack.home import home_view
from adapters.slack.inbound import thread_ref
from adapters.slack.transport import (
    BACKLOG,
    FrontedTransport,
    HttpTransport,
    OpsEndpoints,
    SocketModeTransport,
)

__all__ = ["SlackAdapter", "slack_adapter", "web_client"]

LIST_PAGE = 1000  # channels a conversations.list page asks for (Slack's most)
_SOURCE = {str: "content", bytes: "file"}  # files_upload_v2 takes text as content, bytes as file


def web_client(bot_token: str, api_url: str) -> AsyncWebClient:
    """A Web API client on `api_url` (Slack's, or a stand-in), retrying when rate limited."""
    base_url = api_url if api_url.endswith("/") else api_url + "/"
    client = AsyncWebClient(token=bot_token, base_url=base_url)
    client.retry_handlers.append(AsyncRateLimitErrorRetryHandler(max_retry_count=3))
    return client


class SlackAdapter:
    """labbot in Slack. `transport` decides Socket Mode or HTTP; the rest is the same."""

    platform = "slack"

    def __init__(
        self,
        client: AsyncWebClient,
        transport: FrontedTransport,
        *,
        deliveries: FirstDelivery | None = None,
    ) -> None:
        self.client = client
        self.transport = transport
        self._gates = GateMessages()
        # the front keeps what waits and says busy when full
        self.listeners = Listeners(
            client, self._open_thread, deliveries, transport.backlog, gates=self._gates
        )
        self.app = build_app(client, self.listeners, transport.signing_secret)
        self._groups = UserGroups(client)
        self._names: dict[str, tuple[str, ...]] = {}  # channel id -> its `#name` (asked once)
        self._ids: dict[str, str] = {}  # `#name` -> its channel id (conversations.list)

    async def run(self, handler: EventHandler) -> None:
        self.listeners.attach(handler)
        await self.transport.serve(self.app)

    async def idle(self) -> None:
        """Wait until every Slack delivery received so far has been handled (tests, shutdown)."""
        await self.transport.idle()
        await self.listeners.idle()

    async def post(self, thread: ThreadRef, message: Message) -> str:
        """Post into the thread (top level when `thread.thread` is empty); return its ts."""
        rendered = render(message)
        thread_ts = thread.thread or None
        if message.ephemeral_to:
            # Ephemeral messages cannot carry files: a refusal or note is short anyway.
            response = await self.client.chat_postEphemeral(
                channel=thread.channel,
                user=message.ephemeral_to,
                text=rendered.text,
                blocks=rendered.blocks,
                thread_ts=thread_ts,
            )
            return str(response["message_ts"])
        response = await self.client.chat_postMessage(
            channel=thread.channel,
            text=rendered.text,
            blocks=rendered.blocks,
            thread_ts=thread_ts,
            unfurl_links=False,
            unfurl_media=False,
        )
        ts = str(response["ts"])
        self._gates.posted(ts, rendered.text, rendered.blocks)
        try:
            await self._upload(thread.channel, thread_ts or ts, rendered)
        except (SlackClientError, ClientError, TimeoutError) as exc:
            names = tuple(f.filename for f in rendered.files)
            raise FilesNotAttached(ts, names, str(exc)) from exc
        return ts

    async def update(self, thread: ThreadRef, message_id: str, message: Message) -> None:
        """Replace a posted message; its files were uploaded with the first post."""
        rendered = render(message, uploading=False)
        await self.client.chat_update(
            channel=thread.channel, ts=message_id, text=rendered.text, blocks=rendered.blocks
        )

    async def close_gate(
        self, thread: ThreadRef, message_id: str, footer: str, mentions: tuple[str, ...] = ()
    ) -> None:
        """The gate's blocks as shown (posted or clicked here), its buttons swapped for the
        footer. A gate this process neither posted nor saw clicked (a Modify sent to another
        replica after a restart) keeps its message; the footer is said in the thread."""
        shown = self._gates.close(message_id)
        if shown is None:
            await self.post(thread, Message(footer, mentions=mentions))
            return
        done = closed(shown, footer, mentions)
        await self.client.chat_update(
            channel=thread.channel, ts=message_id, text=done.text, blocks=done.blocks
        )

    # --- what the approval policy asks (adapters.chat.PeopleDirectory) ---------------------------

    async def is_direct(self, channel: str) -> bool:
        """Slack's direct-message conversation ids start with D."""
        return channel.startswith("D")

    async def members(self, group: str) -> frozenset[str]:
        return await self._groups.members(group)

    async def power_level(self, channel: str, user_id: str) -> int:
        return 0  # Slack has no power levels

    async def place_names(self, channel: str) -> tuple[str, ...]:
        """The channel's `#name` (conversations.info, asked once per channel; adapters.chat.
        PlaceNames); () for a direct message or a channel Slack does not name to the bot."""
        if channel not in self._names:
            try:
                response = await self.client.conversations_info(channel=channel)
                name = (response.get("channel") or {}).get("name")
            except (SlackClientError, ClientError, TimeoutError):
                return ()  # not kept: asked again next time
            self._names[channel] = (f"#{name}",) if name else ()
        return self._names[channel]

    async def place_id(self, place: str) -> str | None:
        """The id of the channel `#name` (adapters.chat.PlaceIds): Slack's events, updates and
        uploads name a channel by its id, so a thread opened by name is opened by id. An id is
        its own; a name is looked up in conversations.list (the channels the bot can see),
        remembered once found, asked again while not found."""
        if not place.startswith("#"):
            return place
        if place not in self._ids:
            try:
                await self._list_channels()
            except (SlackClientError, ClientError, TimeoutError):
                return None
        return self._ids.get(place)

    async def _list_channels(self) -> None:
        cursor = None
        while True:
            response = await self.client.conversations_list(
                types="public_channel,private_channel",
                exclude_archived=True,
                limit=LIST_PAGE,
                cursor=cursor,
            )
            for channel in response.get("channels") or []:
                if channel.get("id") and channel.get("name"):
                    name = f"#{channel['name']}"
                    self._ids[name] = channel["id"]
                    self._names.setdefault(channel["id"], (name,))
            cursor = (response.get("response_metadata") or {}).get("next_cursor")
            if not cursor:
                return

    async def publish_home(self, user_id: str, home: Home) -> None:
        """The person's App Home tab (adapters.chat.HomePublisher)."""
        await self.client.views_publish(user_id=user_id, view=home_view(home))

    async def _upload(self, channel: str, thread_ts: str, rendered: Rendered) -> None:
        if not rendered.files:
            return
        await self.client.files_upload_v2(
            channel=channel,
            thread_ts=thread_ts,
            file_uploads=[
                {_SOURCE[type(f.content)]: f.content, "filename": f.filename, "title": f.title}
                for f in rendered.files
            ],
        )

    async def _open_thread(self, channel: str, user_id: str, text: str) -> ThreadRef:
        """A slash command has no message to reply to: post one and continue in its thread."""
        mention = f"<@{user_id}>"
        opened = Message(texts.SLASH_OPENED.format(user=user_id, text=text), mentions=(mention,))
        ts = await self.post(thread_ref(channel, ""), opened)
        return thread_ref(channel, ts)


def slack_adapter(
    *,
    bot_token: str,
    api_url: str,
    app_token: str | None = None,
    signing_secret: str | None = None,
    http: bool = False,
    host: str = "127.0.0.1",
    port: int = 3000,
    ops: OpsEndpoints | None = None,
    deliveries: FirstDelivery | None = None,
    backlog: int = BACKLOG,
) -> SlackAdapter:
    """HTTP mode (signatures verified with `signing_secret`; `ops` answers /healthz and
    /metrics) or Socket Mode (`app_token`); `deliveries` tells, across replicas, whether a
    delivery was seen before; `backlog`: deliveries in hand, and as many acked and waiting,
    before the front tells people the bot is busy."""
    client = web_client(bot_token, api_url)
    if http:
        if not signing_secret:
            raise ValueError("HTTP mode needs the signing secret")
        transport = HttpTransport(
            host, port, signing_secret=signing_secret, ops=ops, backlog=backlog
        )
        return SlackAdapter(client, transport, deliveries=deliveries)
    if not app_token:
        raise ValueError("Socket Mode needs the app-level token")
    socket_mode = SocketModeTransport(app_token, api_url, backlog=backlog)
    return SlackAdapter(client, socket_mode, deliveries=deliveries)
