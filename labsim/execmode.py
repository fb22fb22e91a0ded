"""Exec-mode commands (`R1>` and `R1#`): enable, show, terminal, configure, write, copy, ping.

Below the CLI engine: the commands work on a `Session`, which `labsim.cli.CliSession` is.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Mapping
from typing import Protocol

from base.grammar import GLOBAL
from labsim.device import SimDevice
from labsim.platform import Mode, Platform, ShowHandler, expand_word
from labsim.shows import apply_pipe, show_running, show_startup

USER_WORDS = frozenset({"enable", "disable", "show", "terminal", "exit", "logout", "quit", "ping"})
ENABLE_WORDS = USER_WORDS | {"configure", "write", "copy"}


class Session(Protocol):
    """What the exec commands read and change of a CLI session (`labsim.cli.CliSession`)."""

    device: SimDevice
    cli: Platform
    secret: str
    modes: list[Mode]  # the mode stack: `enable` pushes, `disable` pops, `configure` pushes
    pending: Callable[[str], str] | None  # takes the next line (a password, a confirmation)
    hide_next: bool  # the next line is a password: no echo, not logged
    closed: bool

    @property
    def mode(self) -> Mode: ...


class ExecCommands:
    """The exec commands of one session; each handler gets the words after the command."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.handlers: dict[str, Callable[[list[str], int], str]] = {
            "enable": self.enable,
            "disable": self.disable,
            "show": self.show,
            "terminal": self.terminal,
            "exit": self.logout,
            "logout": self.logout,
            "quit": self.logout,
            "ping": self.ping,
            "configure": self.configure,
            "write": self.write,
            "copy": self.copy,
        }

    def run(self, text: str, *, column: int, privileged: bool = False) -> str:
        """Run `text`; `column` is where it starts on screen (for the `^` marker)."""
        session = self.session
        words = text.split()
        allowed = ENABLE_WORDS if privileged or session.mode.id != "user" else USER_WORDS
        command = expand_word(words[0].lower(), allowed)
        if command is None or (privileged and command in ("configure", "exit", "enable")):
            return session.cli.invalid(column)
        return self.handlers[command](words[1:], column + len(text.split(None, 1)[0]) + 1)

    def enable(self, args: list[str], column: int) -> str:
        session = self.session
        if session.mode.id != "user":
            return ""
        if not session.secret:
            session.modes.append(Mode("enable"))
            return ""

        def check(secret: str) -> str:
            if secret.strip() == session.secret:
                session.modes.append(Mode("enable"))
                return ""
            return "% Access denied\n"

        session.pending, session.hide_next = check, True
        return "Password: "

    def disable(self, args: list[str], column: int) -> str:
        del self.session.modes[1:]
        return ""

    def logout(self, args: list[str], column: int) -> str:
        self.session.closed = True
        return ""

    def terminal(self, args: list[str], column: int) -> str:
        if not args:
            return self.session.cli.invalid(column)
        setting = expand_word(args[0].lower(), frozenset({"length", "width", "monitor"}))
        if setting is None:
            return self.session.cli.invalid(column)
        reply = self.session.cli.terminal_replies.get(setting, "")
        return reply.format(args[1] if len(args) > 1 else "")

    def configure(self, args: list[str], column: int) -> str:
        if args and expand_word(args[0].lower(), frozenset({"terminal"})) is None:
            return self.session.cli.invalid(column)
        session = self.session
        session.modes.append(Mode(GLOBAL, "config", session.device.config))
        return session.cli.config_greeting

    def write(self, args: list[str], column: int) -> str:
        target = (
            expand_word(args[0].lower(), frozenset({"memory", "terminal"})) if args else "memory"
        )
        if target == "terminal":
            return self.show(["running-config"], column)
        if target != "memory":
            return self.session.cli.invalid(column)
        self.session.device.save()
        return self.session.cli.save_reply

    def copy(self, args: list[str], column: int) -> str:
        words = [w.lower() for w in args]
        if len(words) != 2 or not (
            "running-config".startswith(words[0]) and "startup-config".startswith(words[1])
        ):
            return self.session.cli.invalid(column)
        session = self.session
        if session.cli.name != "cisco_ios":
            session.device.save()
            return session.cli.save_reply

        def confirm(answer: str) -> str:
            session.device.save()
            return session.cli.save_reply

        session.pending = confirm
        return "Destination filename [startup-config]? "

    def show(self, args: list[str], column: int) -> str:
        text, _, pipe = " ".join(args).partition("|")
        words = text.split()
        if pipe.strip() == JSON_PIPE:
            return self._show_json(words, column + len(text) + 2)
        found = _find_show(self.session.cli.shows, words)
        if found is None:
            return self.session.cli.invalid(column)
        handler, used = found
        if self.session.mode.id == "user" and handler in PRIVILEGED_SHOWS:
            return self.session.cli.invalid(column)  # like IOS: user EXEC shows no config
        output = handler(self.session.device, words[used:])
        if pipe:
            filtered = apply_pipe(output, pipe)
            return (
                self.session.cli.invalid(column + len(text) + 2) if filtered is None else filtered
            )
        return output

    def _show_json(self, words: list[str], pipe_column: int) -> str:
        """`show … | json`: the show's JSON where the platform has it, else refused at `|`."""
        found = _find_show(self.session.cli.json_shows, words)
        if found is None:
            return self.session.cli.invalid(pipe_column)
        handler, used = found
        return handler(self.session.device, words[used:])

    def ping(self, args: list[str], column: int) -> str:
        """Success when the target is on a connected, up subnet (the simulator has no routing)."""
        try:
            target = ipaddress.IPv4Address(args[0])
        except (IndexError, ValueError):
            return self.session.cli.invalid(column)
        up = [i.address for i in self.session.device.interfaces if i.address and i.link_up]
        ok = any(target in address.network for address in up if address is not None)
        marks, rate = ("!!!!!", "100 percent (5/5)") if ok else (".....", "0 percent (0/5)")
        return (
            f"Type escape sequence to abort.\nSending 5, 100-byte ICMP Echos to {target}, "
            f"timeout is 2 seconds:\n{marks}\nSuccess rate is {rate}\n"
        )


JSON_PIPE = "json"
# The configuration, which IOS and EOS show in privileged EXEC only.
PRIVILEGED_SHOWS = (show_running, show_startup)


def _find_show(
    shows: Mapping[tuple[str, ...], ShowHandler], words: list[str]
) -> tuple[ShowHandler, int] | None:
    """The show handler whose keywords `words` abbreviate, preferring the longest match."""
    matches = [
        (handler, len(keywords))
        for keywords, handler in shows.items()
        if len(words) >= len(keywords)
        and all(kw.startswith(w.lower()) for kw, w in zip(keywords, words, strict=False))
    ]
    return max(matches, key=lambda match: match[1], default=None)
