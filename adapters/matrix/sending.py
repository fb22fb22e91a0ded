"""Everything labbot sends into Matrix rooms: thread messages, files, edits, reactions, notices.

- Messages go into the request's thread with a reply fallback to the thread's latest event, for
  clients without threads; a gate message is indexed and gets its decision reactions. A message
  for a room without a thread (an agent's change opening) is posted in the room: the root of its
  thread.
- Sent encrypted in encrypted rooms (to every device there: trust decides whose decisions count,
  not who may read), except reactions, as Element sends them; files go through the media
  repository, encrypted for an encrypted room.
"""

from __future__ import annotations

import functools
import io
import logging
from collections import OrderedDict
from dataclasses import replace
from typing import Any

from aiohttp import ClientError
from nio import AsyncClient, RoomSendResponse, UploadResponse

from adapters.chat import Actor, FileAttachment, FilesNotAttached, Message, ThreadRef
from adapters.matrix import inbound, outbound
from adapters.matrix.e2ee import Encryption
from adapters.matrix.gate_index import GateIndex
from adapters.matrix.ordering import OrderedQueues

log = logging.getLogger(__name__)


GATES_KEPT = 10_000  # gate messages' first events remembered as sent, the oldest forgotten first


class MatrixSendError(RuntimeError):
    """The homeserver refused an event the bot sent."""


class Sender:
    def __init__(self, client: AsyncClient, crypto: Encryption, gates: GateIndex) -> None:
        self._client = client
        self._crypto = crypto
        self._gates = gates
        self._last_in_thread: dict[str, str] = {}  # thread key -> reply-fallback target
        self._reactions = OrderedQueues("gate")  # decision reactions going out, per gate
        self._gate_contents: OrderedDict[str, dict[str, Any]] = OrderedDict()  # event id -> sent

    def saw(self, thread: ThreadRef, event_id: str) -> None:
        """An event arrived in `thread`: the bot's next message there replies to it."""
        self._last_in_thread[thread.key] = event_id

    async def post(self, thread: ThreadRef, message: Message, mention: Actor | None) -> str:
        """Post into the thread (several events when it is long), then its files, each an event
        of its own; the first event's id. FilesNotAttached names the files that did not go."""
        first_id = ""
        for content in outbound.message_contents(message, mention):
            if thread.thread:
                event_id, sent = await self._send_in_thread(thread, content)
            else:  # a new thread's root, in the room itself (where an agent's change opens)
                event_id, sent = await self.send(thread.channel, "m.room.message", content), content
                thread = replace(thread, thread=event_id)  # its other parts and files go in it
            if not first_id:
                first_id = event_id
                self._remember_gate(thread, event_id, sent)
        failed: dict[str, str] = {}  # file name -> why it is not in the thread
        for attached in message.files:
            try:
                await self._send_in_thread(thread, await self._upload(thread.channel, attached))
            except (MatrixSendError, ClientError, TimeoutError) as exc:
                failed[attached.name] = str(exc)
        if failed:
            raise FilesNotAttached(first_id, tuple(failed), "; ".join(failed.values()))
        return first_id

    async def update(self, thread: ThreadRef, message_id: str, message: Message) -> None:
        edit = outbound.edit_content(message_id, message)
        await self.send(thread.channel, "m.room.message", edit)

    async def close_gate(self, thread: ThreadRef, message_id: str, footer: str) -> None:
        """Edit the gate message's first event: the line saying how to decide it swapped for
        `footer`, the rest as sent (remembered here, or read back from the room). A gate that
        cannot be read back keeps its message; the footer is said in the thread."""
        content = self._gate_contents.pop(message_id, None)
        if content is None:
            content = await self._gates.content(thread.channel, message_id)
        if content is None:
            await self.post(thread, Message(footer), None)
            return
        edit = outbound.edit_of(message_id, outbound.closed_content(content, footer))
        await self.send(thread.channel, "m.room.message", edit)

    async def notice(self, room_id: str, text: str, thread_root: str = "") -> None:
        """A notice outside the gate flow (encryption problems, device warnings)."""
        content = outbound.notice_content(text)
        if thread_root:
            content = outbound.in_thread(content, thread_root, thread_root)
        await self.send(room_id, "m.room.message", content)

    async def send(self, room_id: str, event_type: str, content: dict[str, Any]) -> str:
        """One event into the room (encrypted where the room is); its event id."""
        await self._crypto.before_send(room_id)
        response = await self._client.room_send(
            room_id, event_type, content, ignore_unverified_devices=True
        )
        if not isinstance(response, RoomSendResponse):
            raise MatrixSendError(f"cannot send to Matrix room {room_id}: {response}")
        return str(response.event_id)

    async def close(self) -> None:
        """Stop the reactions still going out."""
        await self._reactions.close()

    async def _send_in_thread(
        self, thread: ThreadRef, content: dict[str, Any]
    ) -> tuple[str, dict[str, Any]]:
        reply_to = self._last_in_thread.get(thread.key, thread.thread)
        threaded = outbound.in_thread(content, thread.thread, reply_to)
        event_id = await self.send(thread.channel, "m.room.message", threaded)
        self._last_in_thread[thread.key] = event_id
        return event_id, threaded

    async def _upload(self, room_id: str, attached: FileAttachment) -> dict[str, Any]:
        """Into the media repository (encrypted for an encrypted room); the event's content."""
        encrypt = self._crypto.encrypted(room_id)
        response, keys = await self._client.upload(
            io.BytesIO(attached.data),
            content_type=attached.mime,
            filename=attached.name,
            encrypt=encrypt,
            filesize=len(attached.data),
        )
        if not isinstance(response, UploadResponse):
            raise MatrixSendError(f"cannot upload {attached.name} to Matrix: {response}")
        return outbound.file_content(attached, response.content_uri, keys if encrypt else None)

    def _remember_gate(self, thread: ThreadRef, event_id: str, content: dict[str, Any]) -> None:
        """Index a gate message and add the reactions people click to decide it. The reactions
        are a convenience: they go out in the background, not holding up the thread."""
        source = {"sender": self._client.user_id, "event_id": event_id, "content": content}
        gate = inbound.gate_ref(thread.channel, source, self._client.user_id)
        if gate is not None:
            self._gates.remember(gate)
            self._gate_contents[event_id] = content
            while len(self._gate_contents) > GATES_KEPT:
                self._gate_contents.popitem(last=False)
            self._reactions.submit(gate.event_id, functools.partial(self._add_reactions, gate))

    async def _add_reactions(self, gate: inbound.GateRef) -> None:
        try:
            for choice in gate.choices:
                content = outbound.reaction_content(gate.event_id, outbound.REACTION_KEYS[choice])
                await self.send(gate.thread.channel, "m.reaction", content)
        except (MatrixSendError, ClientError, TimeoutError) as exc:
            log.warning("cannot add the decision reactions to %s: %s", gate.event_id, exc)
