"""Console chat: type requests, read the thread, choose Approve / Modify / Cancel by number.

Lines are read from a text stream (the terminal, or a script file for the non-interactive demo):
  as NAME          speak as another user (to try approval policy)
  1 / 2 / 3        press a button of the latest gate (approve / modify / cancel)
  approve | execute | modify: TEXT | cancel     the same in words
  help, templates, audit …, status, rollback …  commands, in the current thread
  quit / exit      end the session (as Ctrl-D does)
  anything else    a new change request, in a new thread
"""

from __future__ import annotations

import asyncio
import itertools
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from rich.console import Console

from adapters.chat import (
    COMMAND_WORDS,
    Actor,
    Button,
    Decision,
    EventHandler,
    FileAttachment,
    Message,
    Request,
    ThreadRef,
    parse_button_value,
    parse_reply,
)
from adapters.console.render import render_message
from base.vocabulary import CHOICES, Choice

NUMBERS = {str(n): choice for n, choice in enumerate(CHOICES, 1)}  # 1 approve, 2 modify, 3 cancel
QUIT_WORDS = {"quit", "exit"}  # end the session; never taken as a change request


@dataclass
class ConsoleAdapter:
    console: Console
    user: str = "alice"
    source: TextIO = field(default_factory=lambda: sys.stdin)
    echo_input: bool = False  # print script lines as if typed
    first_lines: list[str] = field(default_factory=list)  # typed before reading `source`
    platform: str = "console"
    files_dir: Path = field(default_factory=lambda: Path(tempfile.gettempdir()) / "labbot-files")
    _thread: ThreadRef | None = None
    _buttons: tuple[Button, ...] = ()
    _gate_message_id: str = ""
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _threads: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _shown: dict[str, set[str]] = field(default_factory=dict)  # message id -> lines printed

    @property
    def actor(self) -> Actor:
        return Actor(id=f"console:{self.user}", name=self.user)

    async def run(self, handler: EventHandler) -> None:
        while True:
            if self.source is sys.stdin and not self.first_lines:
                self.console.print(f"[bold]{self.user}>[/bold] ", end="")
            line = await self._readline()
            if not line:
                return
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if self.echo_input:
                self.console.print(f"[bold]{self.user}>[/bold] {line}")
            if line.casefold() in QUIT_WORDS:
                return
            event = await self._event(line)
            if event is not None:
                await handler(event)

    async def _event(self, line: str) -> Request | Decision | None:
        words = line.split(maxsplit=1)
        first = words[0].lower().rstrip(":")
        if first == "as" and len(words) == 2:
            self.user = words[1].strip()
            self.console.print(f"(you are now {self.user})")
            return None
        pressed = _pressed(line)
        if pressed is not None:
            if self._buttons:
                return await self._press(*pressed)
            if first != "cancel":  # `cancel` alone is also the command for this thread
                self.console.print("(nothing is waiting for a decision here)")
                return None
        if first in COMMAND_WORDS:
            return Request(self._current_thread(), self.actor, line)
        self._thread = ThreadRef(self.platform, "terminal", f"t{next(self._threads)}")
        self._buttons = ()
        return Request(self._thread, self.actor, line)

    async def _press(self, choice: Choice, feedback: str | None) -> Decision:
        button = next(b for b in self._buttons if b.choice == choice)
        if button.choice == "modify":
            feedback = feedback or await self._ask("What should change? ")
        interrupt_id, sha256 = parse_button_value(button.value)
        return Decision(
            self._current_thread(),
            self.actor,
            interrupt_id,
            button.choice,
            sha256,
            feedback,
            message_id=self._gate_message_id,
        )

    async def _readline(self) -> str:
        if self.first_lines:
            line = self.first_lines.pop(0) + "\n"
            self.console.print(f"[bold]{self.user}>[/bold] {line.strip()}")
            return line
        return await asyncio.to_thread(self.source.readline)

    async def _ask(self, prompt: str) -> str:
        if self.source is sys.stdin:
            self.console.print(prompt, end="")
        return (await self._readline()).strip()

    def _current_thread(self) -> ThreadRef:
        if self._thread is None:
            self._thread = ThreadRef(self.platform, "terminal", f"t{next(self._threads)}")
        return self._thread

    async def post(self, thread: ThreadRef, message: Message) -> str:
        message_id = f"m{next(self._ids)}"
        if message.ephemeral_to and message.ephemeral_to != self.actor.id:
            return message_id  # someone else's private note
        if message.buttons:
            self._buttons, self._gate_message_id = message.buttons, message_id
        self._shown[message_id] = set(_lines(message))
        self.console.print(render_message(message))
        for attached in message.files:
            path = await asyncio.to_thread(self._write, message_id, attached)
            self.console.print(f"  📎 {attached.alt or attached.name}: {path}", highlight=False)
        return message_id

    def _write(self, message_id: str, attached: FileAttachment) -> Path:
        """A terminal shows no pictures or pages: the file is written for a viewer to open."""
        self.files_dir.mkdir(parents=True, exist_ok=True)
        path = self.files_dir / f"{message_id}-{Path(attached.name).name}"
        path.write_bytes(attached.data)
        return path

    async def update(self, thread: ThreadRef, message_id: str, message: Message) -> None:
        """A terminal cannot edit what it printed: print what changed (footer, new lines)."""
        if message_id == self._gate_message_id and not message.buttons:
            self._buttons = ()
        if message.footer:
            self.console.print(f"[bold]{message.footer}[/bold]")
            return
        shown = self._shown.setdefault(message_id, set())
        for line in _lines(message):
            if line not in shown:
                shown.add(line)
                self.console.print(f"  {line}", highlight=False)


def _lines(message: Message) -> list[str]:
    return [line for block in message.blocks for line in block.text.splitlines()]


def _pressed(line: str) -> tuple[Choice, str | None] | None:
    """A button pressed by number (`1`, `2: feedback`) or in words (`modify: feedback`)."""
    number, _, rest = line.partition(" ")
    if number.rstrip(":") in NUMBERS:
        return NUMBERS[number.rstrip(":")], rest.strip().lstrip(":").strip() or None
    return parse_reply(line)
