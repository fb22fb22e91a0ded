"""What a synced event means to the bot, and its delivery: in arrival order within each thread.

- nio event -> `Request`, or a reply/reaction that becomes a `Decision` on its gate (marked
  `untrusted_because` when the trust mode does not accept the sending device). A typed reply's
  gate is the one its author saw (`GateIndex.seen_with`): a stale one is refused by the bot.
- Ordering: a reply is matched to the thread's gate only after what came before it in the thread
  (the request posting that gate) is handled, and of two decisions the first sent is the first
  recorded. So each room's events are routed in arrival order (a reaction's thread may need its
  gate fetched) into one ordered queue per thread; threads run side by side, so one long push
  holds up neither other threads nor the sync loop. No lock: `ordering.OrderedQueues`.
- A decision counts only in its gate's own room, from a joined member of that room; an event
  whose sender is no valid Matrix user id is nothing.
- An undecryptable event is answered once: per room without the e2e extra, per key session with.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import Callable, Mapping
from typing import Any

from aiohttp import ClientError
from nio import AsyncClient, MegolmEvent

from adapters.chat import ChatEvent, EventHandler, Message, Request, ThreadRef
from adapters.matrix import inbound, texts
from adapters.matrix.e2ee import Encryption
from adapters.matrix.gate_index import GateIndex
from adapters.matrix.ordering import OrderedQueues
from adapters.matrix.rooms import Rooms
from adapters.matrix.sending import MatrixSendError, Sender
from adapters.user_ids import is_matrix_user_id

log = logging.getLogger(__name__)


class Receiver:
    def __init__(
        self,
        client: AsyncClient,
        rooms: Rooms,
        crypto: Encryption,
        gates: GateIndex,
        sender: Sender,
        identity: Callable[[], inbound.BotIdentity],
    ) -> None:
        self._client = client
        self._rooms = rooms
        self._crypto = crypto
        self._gates = gates
        self._sender = sender
        self._identity = identity
        self._by_room = OrderedQueues("room")  # finding each event's thread, in arrival order
        self._by_thread = OrderedQueues("thread")  # handling each thread's events, in order
        self._encryption_noted: set[str] = set()

    async def note(self, room_id: str, event: Any, handler: EventHandler) -> None:
        """`event` is nio's: decrypted where nio could, which the trust check needs to know."""
        source: Mapping[str, Any] = event.source
        if source.get("type") == "m.room.encrypted":
            try:
                await self._undecryptable(room_id, event)
            except (MatrixSendError, ClientError, TimeoutError) as exc:
                log.warning("cannot tell %s about an undecryptable event: %s", room_id, exc)
            return
        if source.get("type") == "m.room.member":
            self._crypto.note_member(room_id, dict(source))
        if not is_matrix_user_id(str(source.get("sender", ""))):
            return
        root = inbound.thread_root(source.get("content", {}))
        if root:
            thread = ThreadRef(inbound.PLATFORM, room_id, root)
            self._sender.saw(thread, source["event_id"])
            self._gates.note(thread, source)
        actor = self._rooms.actor(room_id, str(source.get("sender", "")))
        meant = inbound.translate(room_id, source, actor, self._identity())
        if isinstance(meant, inbound.Reply | inbound.Reaction):
            doubt = self._crypto.untrusted_because(room_id, event)
            meant = dataclasses.replace(meant, untrusted_because=doubt)
        if meant is not None:
            self._by_room.submit(room_id, functools.partial(self._route, meant, handler))

    async def close(self) -> None:
        await self._by_room.close()
        await self._by_thread.close()

    async def _route(self, event: inbound.Inbound, handler: EventHandler) -> None:
        """Into its thread's queue (a reaction on a message that is no gate goes nowhere)."""
        if isinstance(event, inbound.Reaction):
            gate = await self._gates.by_event(event.room_id, event.target)
            if gate is None:
                return
            thread = gate.thread
        else:
            thread = event.thread
        self._by_thread.submit(thread.key, functools.partial(self._handle, event, handler))

    async def _handle(self, event: inbound.Inbound, handler: EventHandler) -> None:
        chat_event = await self._resolve(event)
        if chat_event is not None:
            await handler(chat_event)

    async def _resolve(self, event: inbound.Inbound) -> ChatEvent | None:
        """A `Request` as it is; a reply or reaction becomes a `Decision` on its gate."""
        if isinstance(event, Request):
            return event
        if isinstance(event, inbound.Reaction):
            gate = await self._gates.by_event(event.room_id, event.target)
        else:
            latest = await self._gates.for_thread(event.thread)
            if latest is None and event.addressed:  # the bot answers where this thread stands
                return Request(event.thread, event.actor, "status")
            gate = await self._gates.seen_with(event.thread, event.replies_to)
            if latest is not None and gate is None:  # replied to no gate: which one is meant?
                ask = Message(texts.REPLY_TO_GATE, ephemeral_to=event.actor.id)
                await self._sender.post(latest.thread, ask, event.actor)
                return None
        if gate is None or event.choice not in gate.choices:
            return None
        if not self._rooms.is_joined(gate.thread.channel, event.actor.id):
            return None
        decision = inbound.decision(gate, event)
        if decision.choice == "modify" and not decision.feedback and not event.untrusted_because:
            ask = Message(texts.ASK_FEEDBACK, ephemeral_to=event.actor.id)
            await self._sender.post(gate.thread, ask, event.actor)
            return None
        return decision

    async def _undecryptable(self, room_id: str, event: Any) -> None:
        """Said once: per room without the e2e extra, per key session with it."""
        if not self._crypto.active:
            if room_id not in self._encryption_noted:
                self._encryption_noted.add(room_id)
                log.warning(texts.E2EE_LOG, room_id)
                await self._sender.notice(room_id, texts.E2EE_UNSUPPORTED)
            return
        if not isinstance(event, MegolmEvent) or event.sender == self._client.user_id:
            return
        if await self._crypto.undecryptable(room_id, event):
            name = self._rooms.actor(room_id, event.sender).name
            root = inbound.thread_root(event.source.get("content", {}))
            await self._sender.notice(room_id, texts.UNDECRYPTABLE.format(sender=name), root)
