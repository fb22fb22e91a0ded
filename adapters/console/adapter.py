"""Console chat: type requests, read the thread, choose Approve / Modify / Cancel by number.

Lines are read from a text stream (the terminal; or a chat written beforehand, a script file or
a pipe, each line echoed after the prompt as if typed):
  as NAME          speak as another user: anyone in the demo, else those LABBOT_CONSOLE_USERS
                   lists (`seats`); names are compared case-insensitively
  1 / 2 / 3        press a button of the latest gate (approve / modify / cancel)
  approve | execute | modify: TEXT | cancel     the same in words
  approve chg-… | modify chg-…: TEXT | cancel chg-…   decide an open change by its id
  help, templates, audit …, status, rollback …  commands, in the current thread
  quit / exit      end the session (as Ctrl-D does; Ctrl-C clears the line, twice quits)
  clear / cls      clear the screen; `?`, `-h`, `--help`, `man` ask for help; other shell
                   commands typed alone (`ls`, `cd`, …) are answered, never taken as a request
  anything else    a new change request, in a new thread
Thread and message ids start with a random session id: a new session never meets an old
session's thread (an agent's change opens a thread at a message it posted).
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
import signal
import sys
import tempfile
from collections.abc import Awaitable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from rich.console import Console
from rich.text import Text

from adapters.chat import (
    Actor,
    Button,
    ChatEvent,
    CodeBlock,
    Decision,
    EventHandler,
    FileAttachment,
    Message,
    Request,
    ThreadRef,
    decision_by_id,
    parse_button_value,
    parse_reply,
)
from adapters.console import texts
from adapters.console.keyboard import Interrupted, Keyboard
from adapters.console.render import render_message, styled
from adapters.user_ids import canonical_user_id
from base.vocabulary import CHOICES, Choice

__all__ = ["ConsoleAdapter"]

NUMBERS = {str(n): choice for n, choice in enumerate(CHOICES, 1)}  # 1 approve, 2 modify, 3 cancel
QUIT_WORDS = {"quit", "exit", "logout", ":q"}  # end the session; never a change request
CLEAR_WORDS = {"clear", "cls"}  # a terminal habit: clear the screen
HELP_WORDS = {"?", "h", "-h", "--help", "/help", "man", "help?"}  # the `help` command
# shell commands typed alone by habit: answered, never taken as a change request
SHELL_WORDS = {"ls", "dir", "cd", "pwd", "history", "whoami", "top", "vi", "vim", "nano", "sudo"}


@dataclass
class ConsoleAdapter:
    console: Console
    user: str = "alice"
    source: TextIO = field(default_factory=lambda: sys.stdin)
    echo_input: bool = False  # print script lines as if typed (and show no prompt of its own)
    first_lines: list[str] = field(default_factory=list)  # typed before reading `source`
    platform: str = "console"
    files_dir: Path = field(default_factory=lambda: Path(tempfile.gettempdir()) / "labbot-files")
    # who else may sit at this console (`as NAME`), case-insensitively; None: anyone (the demo)
    seats: frozenset[str] | None = None
    session: str = field(default_factory=lambda: secrets.token_hex(4))
    takes_input: bool = True  # False: it only posts (`labbot mcp`'s), people decide elsewhere
    # the first words the bot takes as commands (bot.commands.registry.command_words): such a
    # line is said in the current thread; any other line that decides nothing opens a new one
    command_words: frozenset[str] = frozenset()
    _thread: ThreadRef | None = None
    _buttons: tuple[Button, ...] = ()
    _gate_message_id: str = ""
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _threads: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _shown: dict[str, set[str]] = field(default_factory=dict)  # message id -> lines printed
    _keyboard: Keyboard | None = None
    _interrupts: int = 0  # Ctrl-C pressed since the last line read
    _busy: asyncio.Future[None] | None = None
    _first_user: str = field(init=False)

    def __post_init__(self) -> None:
        self._first_user = self.user

    @property
    def actor(self) -> Actor:
        """`as Bob` and `as bob` are one person: the id is case-folded, the name kept."""
        return Actor(id=canonical_user_id(f"console:{self.user}"), name=self.user)

    @property
    def interactive(self) -> bool:
        """A person types: the prompt is shown before each line (a script's lines are echoed)."""
        return self.source is sys.stdin and not self.echo_input

    async def run(self, handler: EventHandler) -> None:
        # stdin (a terminal, or a pipe) is read on the loop, so a step's progress is not held
        if self.source is sys.stdin and self._keyboard is None:
            self._keyboard = Keyboard(self.source.fileno())
            asyncio.get_running_loop().add_signal_handler(signal.SIGINT, self._ctrl_c)
        try:
            await self._serve(handler)
        finally:
            if self._keyboard is not None:
                asyncio.get_running_loop().remove_signal_handler(signal.SIGINT)

    async def _serve(self, handler: EventHandler) -> None:
        while True:
            try:
                if not await self._turn(handler):
                    return
            except Interrupted:  # Ctrl-C at the prompt, or at "What should change?"
                if self._interrupts > 1:
                    return
                self._note(texts.INPUT_CLEARED)

    async def _turn(self, handler: EventHandler) -> bool:
        """Read one line and act on it; False when the session ends."""
        line = await self._next_line()
        if not line:
            return False
        line = line.strip()
        if not line or line.startswith("#"):
            return True
        if self.echo_input:
            self.console.print(self._prompt().append(line))
        word = line.casefold()
        if word in QUIT_WORDS:
            return False
        if word in CLEAR_WORDS or word in SHELL_WORDS:
            self._habit(word)
            return True
        event = await self._event("help" if word in HELP_WORDS else line)
        return event is None or await self._handled(handler(event))

    async def _next_line(self) -> str:
        if self.interactive and not self.first_lines:
            self.console.print(self._prompt(), end="")
        line = await self._readline()
        self._interrupts = 0
        return line

    async def _handled(self, handling: Awaitable[None]) -> bool:
        """Run the handler as a task a second Ctrl-C can stop; False when it was stopped."""
        self._busy = asyncio.ensure_future(handling)
        try:
            await self._busy
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # the session itself is being cancelled
            return False
        finally:
            self._busy = None
        return True

    def _ctrl_c(self) -> None:
        """Ctrl-C ends the line being typed; the second in a row quits (stopping a step)."""
        self._interrupts += 1
        if self._keyboard is not None and self._keyboard.reading:
            self._keyboard.interrupt()
        elif self._busy is not None:
            if self._interrupts > 1:
                self._busy.cancel()
            else:
                self._note(texts.STILL_WORKING)

    def _habit(self, word: str) -> None:
        """A terminal habit typed alone: `clear` clears the screen; a shell command is told
        apart from a request."""
        if word in CLEAR_WORDS:
            self.console.clear()
        else:
            self._note(texts.SHELL_WORD.format(word=word))

    def _note(self, text: str) -> None:
        self.console.print(Text(text, style="dim"))

    def _prompt(self) -> Text:
        return Text(f"{self.user}> ", style="bold")

    async def _event(self, line: str) -> ChatEvent | None:
        words = line.split(maxsplit=1)
        first = words[0].lower().rstrip(":")
        if first == "as" and len(words) == 2:
            self._sit(words[1].strip())
            return None
        if decision_by_id(line) is not None:  # a command: the bot finds the change's gate
            return Request(self._current_thread(), self.actor, line)
        pressed = _pressed(line)
        if pressed is not None:
            if self._buttons:
                return await self._press(*pressed)
            if first != "cancel":  # `cancel` alone is also the command for this thread
                self._note(texts.NOTHING_WAITING)
                return None
        if first in self.command_words:
            return Request(self._current_thread(), self.actor, line)
        self._thread = self._new_thread()
        self._buttons = ()
        return Request(self._thread, self.actor, line)

    def _sit(self, user: str) -> None:
        """`as USER`: anyone in the demo; else the user who started it or a listed seat."""
        name = canonical_user_id(f"console:{user}").removeprefix("console:")
        first = canonical_user_id(f"console:{self._first_user}").removeprefix("console:")
        allowed = self.seats is None or name in {first, *self.seats}
        if allowed:
            self.user = user
            self._note(texts.NOW_YOU_ARE.format(user=user))
        elif not self.seats:
            self._note(texts.NO_SEATS.format(current=self.user))
        else:
            seats = ", ".join(sorted(self.seats))
            self._note(texts.NOT_A_SEAT.format(user=user, seats=seats, current=self.user))

    async def _press(self, choice: Choice, feedback: str | None) -> Decision:
        button = next(b for b in self._buttons if b.choice == choice)
        if button.choice == "modify":
            feedback = feedback or await self._ask(texts.ASK_MODIFY)
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
            self.console.print(self._prompt().append(line.strip()))
            return line
        if self._keyboard is not None:
            return await self._keyboard.readline()
        return self.source.readline()  # a script in memory: never blocks

    async def _ask(self, prompt: str) -> str:
        if self.interactive:
            self.console.print(prompt, end="")
        return (await self._readline()).strip()

    def _new_thread(self) -> ThreadRef:
        return ThreadRef(self.platform, "terminal", f"{self.session}.{next(self._threads)}")

    def _current_thread(self) -> ThreadRef:
        if self._thread is None:
            self._thread = self._new_thread()
        return self._thread

    async def post(self, thread: ThreadRef, message: Message) -> str:
        message_id = f"{self.session}.m{next(self._ids)}"  # an agent's thread root: never reused
        if message.ephemeral_to and message.ephemeral_to != self.actor.id:
            return message_id  # someone else's private note
        if message.buttons:
            self._buttons, self._gate_message_id = message.buttons, message_id
            self._thread = thread  # the gate's thread is where the next `1` or `status` goes
        self._shown[message_id] = set(_lines(message))
        self.console.print(render_message(message, typed_here=self.takes_input))
        for attached in message.files:
            path = await asyncio.to_thread(self._write, message_id, attached)
            self.console.print(f"  📎 {attached.alt or attached.name}: {path}", highlight=False)
        return message_id

    def _write(self, message_id: str, attached: FileAttachment) -> Path:
        """A terminal shows no pictures or pages: the file is written for a viewer to open."""
        self.files_dir.mkdir(parents=True, exist_ok=True)
        name, number = Path(attached.name).name, _last_number(self.files_dir)
        while True:  # numbered after the files there (earlier sessions' too), never over one
            number += 1
            path = self.files_dir / f"{number}-{name}"
            try:
                with path.open("xb") as written:
                    written.write(attached.data)
            except FileExistsError:  # another session wrote that number meanwhile
                continue
            return path

    async def close_gate(
        self, thread: ThreadRef, message_id: str, footer: str, mentions: tuple[str, ...] = ()
    ) -> None:
        """A terminal cannot edit what it printed: the footer is the gate's closing line, and
        its buttons are pressed no more."""
        if message_id == self._gate_message_id:
            self._buttons = ()
        self.console.print(styled(footer, "bold"))

    async def update(self, thread: ThreadRef, message_id: str, message: Message) -> None:
        """A terminal cannot edit what it printed: print what changed (the footer; new lines
        in a box of their own, as the message was)."""
        if message.footer:
            self.console.print(styled(message.footer, "bold"))
            return
        shown = self._shown.setdefault(message_id, set())
        new = [line for line in dict.fromkeys(_lines(message)) if line not in shown]
        if new:  # in a box as the message was, under its header (`2 of 3 pushed`)
            shown.update(new)
            block = CodeBlock("\n".join(new), "text")
            changed = Message(message.text, blocks=(block,), level=message.level)
            self.console.print(render_message(changed, typed_here=self.takes_input))


def _last_number(folder: Path) -> int:
    """The highest number a file in `folder` starts with (`7-topology.svg`), 0 for none."""
    numbers = (entry.name.split("-", 1)[0] for entry in folder.iterdir())
    return max((int(n) for n in numbers if n.isdigit()), default=0)


def _lines(message: Message) -> list[str]:
    return [line for block in message.blocks for line in block.text.splitlines()]


def _pressed(line: str) -> tuple[Choice, str | None] | None:
    """A button pressed by number (`1`, `2: feedback`) or in words (`modify: feedback`)."""
    number, _, rest = line.partition(" ")
    if number.rstrip(":") in NUMBERS:
        return NUMBERS[number.rstrip(":")], rest.strip().lstrip(":").strip() or None
    return parse_reply(line)
