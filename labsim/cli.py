"""One CLI session on a simulated device: modes, prompts, echo, configuration editing.

The session is transport-free: `feed_line(line)` returns what the device prints back (the echo,
the answer and the next prompt) with "\\n" line ends; the telnet and SSH servers deliver it.
Configuration lines are accepted generically into the device's tree (`labsim.configtree`)
where the platform's mode grammar (`base.grammar`, closed world) places them: a line its mode
does not accept runs in the first enclosing mode that does; one no mode accepts, or one that
breaks one of a few sanity rules, is refused.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable

from base.grammar import GLOBAL
from labsim.configtree import add_line, remove_line
from labsim.device import SimDevice
from labsim.execmode import ExecCommands
from labsim.platform import Mode

USER, ENABLE = "user", "enable"


class CliSession:
    """One login on `device`. `closed` turns True when the device ends the session."""

    def __init__(self, device: SimDevice, *, privileged: bool, secret: str) -> None:
        self.device = device
        self.cli = device.cli
        self.secret = secret
        self.modes: list[Mode] = [Mode(USER)] + ([Mode(ENABLE)] if privileged else [])
        self.pending: Callable[[str], str] | None = None  # takes the next line (password, ...)
        self.hide_next = False  # the next line is a password: no echo, not logged
        self.config_lines = 0
        self.closed = False
        self.exec = ExecCommands(self)

    @property
    def mode(self) -> Mode:
        return self.modes[-1]

    @property
    def in_config(self) -> bool:
        return self.mode.id not in (USER, ENABLE)

    def prompt(self) -> str:
        if self.mode.id == USER:
            return f"{self.device.hostname}>"
        if self.mode.id == ENABLE:
            return f"{self.device.hostname}#"
        return f"{self.device.hostname}({self.mode.label})#"

    def greeting(self) -> str:
        return "\n" + self.prompt()

    def feed_line(self, line: str) -> str:
        """Handle one typed line; returns echo + answer + next prompt."""
        if self._drops(line):
            self.closed = True
            return ""
        if self._mutes(line):
            return ""
        hidden, self.hide_next = self.hide_next, False
        echo = "" if hidden else line
        if not hidden and line.strip():
            self.device.commands_seen.append(line.strip())
        if self.pending is not None:
            handler, self.pending = self.pending, None
            answer = handler(line)
        else:
            answer = self._dispatch(line)
        suffix = "" if self.closed or self.pending is not None else self.prompt()
        return f"{echo}\n{answer}{suffix}"

    def _mutes(self, line: str) -> bool:
        """The `mute_setup` fault: a `terminal …` line (netmiko's session set-up) gets no echo,
        no answer and no prompt."""
        fault = self.device.fault
        words = line.split()
        return fault is not None and fault.kind == "mute_setup" and words[:1] == ["terminal"]

    def _drops(self, line: str) -> bool:
        """The session faults: `drop_after` (configuration line N+1 is neither applied nor
        answered), `drop_at_exit` (nor is `end`), `drop_read_back` (nor is `show
        running-config` once the device took a configuration line)."""
        if not line.strip() or self.pending is not None:
            return False
        fault = self.device.fault
        if fault is not None and fault.kind == "drop_read_back":
            return self.device.configured and _reads_config(line)
        if not self.in_config:
            return False
        self.config_lines += 1
        if fault is not None and fault.kind == "drop_at_exit":
            return line.strip() == "end"
        return fault is not None and fault.kind == "drop_after" and self.config_lines > fault.after

    def _dispatch(self, line: str) -> str:
        text = line.strip()
        if not text:
            return ""
        if self.device.rejects(text):  # a configuration line, or a read this device lacks
            return self.cli.invalid(len(self.prompt()) + line.find(text))
        if not self.in_config:
            return self.exec.run(text, column=len(self.prompt()) + line.find(text))
        return self._config_line(text, column=len(self.prompt()) + line.find(text))

    def _config_line(self, text: str, column: int) -> str:
        words = text.split()
        if words[0] == "end":
            del self.modes[2:]
            return ""
        if words[0] in ("exit", "exit-address-family"):
            self.modes.pop()
            return ""
        if words[0] == "do" and len(words) > 1:
            return self.exec.run(text[2:].strip(), column=column + 3, privileged=True)
        self.device.configured = True
        with self.device.lock:
            return self._apply(text, column)

    def _apply(self, text: str, column: int) -> str:
        negate = text.split()[0] in ("no", "default")
        body = text.split(None, 1)[1] if negate and " " in text else text
        if negate and body == text:
            return self.cli.invalid(column + len(text))
        offset = len(text) - len(body)
        modes = list(self.modes)
        expanded = self._fit(body)
        problem = None if expanded is None else self._nonsense(expanded)
        if expanded is None or problem is not None:
            self.modes = modes  # refused everywhere: IOS stays in the mode it was in
            return self.cli.invalid(column + offset + (problem or 0))
        node = self.mode.node
        assert node is not None
        top_level = self.mode.id == GLOBAL
        if negate:
            remove_line(self.cli.rules, node, expanded, top_level=top_level)
            return ""
        if expanded.startswith("banner "):
            return self._banner(expanded, column + offset)
        added = add_line(self.cli.rules, node, expanded, top_level=top_level)
        section = self.cli.section_for(self.mode.id, expanded)
        if section is not None:
            section.node = added
            self.modes.append(section)
        return ""

    def _fit(self, body: str) -> str | None:
        """The canonical line if it belongs to this mode or (leaving sub-modes) a parent: IOS
        runs a command its sub-mode does not know in the first parent mode that knows it, up
        to global configuration, whatever the line's indentation."""
        while True:
            expanded = self._expand(self.mode.id, body)
            if expanded is not None:
                return expanded
            if self.mode.id == GLOBAL:
                return None
            self.modes.pop()  # IOS leaves the sub-mode for a line that fits the parent

    def _expand(self, mode: str, body: str) -> str | None:
        return self.cli.grammar.spelled(mode, body)

    def _nonsense(self, line: str) -> int | None:
        """Offset of the first character a device would reject, for the few rules we check."""
        words = line.split()
        if words[0] == "vlan" and len(words) > 1:
            ok = words[1].isdigit() and 1 <= int(words[1]) <= 4094
            return None if ok else len("vlan ")
        if words[0] == "router-id" and len(words) > 1:  # an IPv4 address, as IOS reads it
            return None if _ipv4(words[1]) else len("router-id ")
        if words[:2] == ["ip", "address"] and len(words) > 2 and words[2] not in ("dhcp",):
            return None if _address_ok(self.cli.address_style, words[2:]) else len("ip address ")
        return None

    def _banner(self, line: str, column: int) -> str:
        """Collect a banner: IOS up to its delimiter character, EOS up to a line `EOF`."""
        delimiter = self.cli.banner_start(line)
        if delimiter is None:
            return self.cli.invalid(column + len(line))
        kind = line.split()[1]
        eof_style = delimiter == "EOF"
        header, closing = (f"banner {kind}", "EOF") if eof_style else (f"banner {kind} ^C", "^C")
        rest = "" if eof_style else line.split(delimiter, 1)[1]
        if delimiter in rest:
            self._store_banner(header, [rest.split(delimiter, 1)[0]], closing)
            return ""
        body = [rest] if rest else []

        def collect(text: str) -> str:
            ended = text.strip() == delimiter if eof_style else delimiter in text
            if not ended:
                body.append(text)
                self.pending = collect
                return ""
            before = "" if eof_style else text.split(delimiter, 1)[0]
            self._store_banner(header, [*body, before] if before else body, closing)
            return ""

        self.pending = collect
        return self.cli.banner_prompt(delimiter)

    def _store_banner(self, header: str, body: list[str], closing: str) -> None:
        with self.device.lock:
            root = self.device.config
            node = add_line(self.cli.rules, root, header, top_level=True)
            node.body, node.closing = body, closing


def _reads_config(line: str) -> bool:
    """`show running-config` (or `do show running-config`), however abbreviated."""
    words = line.split()
    words = words[1:] if words[:1] == ["do"] else words
    return len(words) >= 2 and "show".startswith(words[0]) and "running-config".startswith(words[1])


def _ipv4(word: str) -> bool:
    try:
        return bool(ipaddress.IPv4Address(word))
    except ValueError:
        return False


def _address_ok(style: str, words: list[str]) -> bool:
    try:
        if style == "mask":
            return len(words) >= 2 and bool(ipaddress.IPv4Interface(f"{words[0]}/{words[1]}"))
        return "/" in words[0] and bool(ipaddress.IPv4Interface(words[0]))
    except ValueError:
        return False
