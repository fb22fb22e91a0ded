"""A platform's configuration modes and where each typed line lands among them.

A `Grammar` holds the modes of one platform's configuration CLI: global configuration and every
sub-mode a template may write into, each with the line that opens it (in its parent mode) and
the commands it accepts (`base.grammar.commands`). The model is closed world, as IOS-like CLIs
behave: a line is inside a sub-mode only where the grammar places it there; a line its mode does
not accept runs in the first enclosing mode that does, up to global configuration; a line no
mode on the way accepts is unknown, and the device refuses it (staying in its mode).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from base.grammar.commands import CommandNode, accepted, command_tree, exact_keywords

GLOBAL = "config"  # the mode id of global configuration
NEGATIONS = ("no", "default")
GLOBAL_PLACE = "global"
_CACHED_LINES = 20_000  # (mode, line) readings kept per grammar


@dataclass(frozen=True)
class Mode:
    """One sub-mode: its id, the mode it is opened from, the (spelled-out, case-folded) line
    that opens it there, the prompt the device shows in it, and what it accepts."""

    id: str
    parent: str
    opener: re.Pattern[str]
    prompt: str
    commands: CommandNode


def mode(
    mode_id: str, opener: str, prompt: str, specs: Sequence[str], parent: str = GLOBAL
) -> Mode:
    """A sub-mode from its opening line's pattern (spelled out, case-folded) and its specs."""
    return Mode(mode_id, parent, re.compile(opener), prompt, command_tree(specs))


@dataclass(frozen=True)
class Placed:
    """Where one typed line landed: the headers of the modes above it (none: global), the
    line with its keywords spelled out, and whether it opened a mode. `known` False: no mode
    on the way accepts it (the device refuses it)."""

    line: str
    spelled: str
    headers: tuple[str, ...]
    known: bool = True
    opens: str | None = None  # the id of the mode it opened

    @property
    def place(self) -> str:
        """`global`, `interface GigabitEthernet0/1`, `router bgp 65000 > address-family ipv4`."""
        return " > ".join(self.headers) or GLOBAL_PLACE

    @property
    def path(self) -> tuple[str, ...]:
        return (*self.headers, self.spelled)


@dataclass(frozen=True)
class Grammar:
    """One platform's modes (`name` is what labbot says models it, e.g. `cisco_ios`)."""

    name: str
    global_commands: CommandNode
    modes: tuple[Mode, ...]
    interface_names: tuple[str, ...]  # canonical interface types, for `gi0/1`
    negations: tuple[str, ...] = NEGATIONS  # words that negate a line (VRP: `undo`)

    def commands(self, mode: str) -> CommandNode:
        if mode == GLOBAL:
            return self.global_commands
        return self._by_id[mode].commands

    @functools.cached_property
    def _by_id(self) -> Mapping[str, Mode]:
        return {mode.id: mode for mode in self.modes}

    def parent(self, mode: str) -> str:
        return self._by_id[mode].parent

    @functools.cached_property
    def _spelled_cache(self) -> dict[tuple[str, str], str | None]:
        return {}

    def spelled(self, mode: str, body: str) -> str | None:
        """`body` (no `no`) with its keywords spelled out, if `mode` accepts it there."""
        key = (mode, body)
        cache = self._spelled_cache
        if key not in cache:
            if len(cache) >= _CACHED_LINES:  # a bound: lines repeat across devices, not forever
                cache.clear()
            cache[key] = self._spell(mode, body)
        return cache[key]

    def _spell(self, mode: str, body: str) -> str | None:
        typed = body.split()
        if not typed:
            return None
        words = [word.casefold() for word in typed]
        found = accepted(self.commands(mode), words)
        if found is None or (mode != GLOBAL and self._global_reading(words, found)):
            return None
        line = " ".join(_cased(found, typed))
        if found[0] == "interface" and len(found) > 1:
            line = "interface " + self.canonical_interface(" ".join(typed[1:]))
        return line

    def _global_reading(self, words: Sequence[str], found: Sequence[str]) -> bool:
        """Whether global configuration takes a word exactly as typed where the sub-mode only
        reads it cut short: `router` in a routing process is not `router-id`, `ip mroute …`
        under an interface is not `ip mroute-cache` (the sub-mode's reading fails on the
        arguments, and the device runs the line globally)."""
        cut = [
            index
            for index, (word, typed) in enumerate(zip(found, words, strict=True))
            if word != typed
        ]
        if not cut:
            return False
        if accepted(self.global_commands, words) is None:
            return False
        return bool(exact_keywords(self.global_commands, words) & set(cut))

    def opened(self, mode: str, line: str) -> Mode | None:
        """The sub-mode a spelled-out line accepted in `mode` opens, if any."""
        folded = line.casefold()
        return next((m for m in self.modes if m.parent == mode and m.opener.match(folded)), None)

    def canonical_interface(self, name: str) -> str:
        """`gi0/0` -> `GigabitEthernet0/0`; unknown names unchanged."""
        match = re.match(r"^([A-Za-z-]+)\s*(\d.*)$", name)
        if not match:
            return name
        kind, number = match.group(1).lower(), match.group(2)
        for full in self.interface_names:
            if full.lower().startswith(kind):
                return full + number
        return name

    def place(self, lines: Iterable[str]) -> list[Placed]:
        """Each line typed in order into configuration mode, as the device places it."""
        stack: list[tuple[str, str]] = [(GLOBAL, "")]  # (mode id, its header line)
        placed = []
        for line in lines:
            text = " ".join(line.split())
            if not text:
                continue
            found = self._land(stack, text)
            placed.append(found)
        return placed

    def numbered(self, lines: Sequence[str]) -> list[tuple[int, str, Placed]]:
        """(1-based number, line, where it lands) for each non-blank line of `lines`."""
        kept = [(number, line) for number, line in enumerate(lines, start=1) if line.strip()]
        placed = self.place(line for _, line in kept)
        return [(number, line, where) for (number, line), where in zip(kept, placed, strict=True)]

    def _land(self, stack: list[tuple[str, str]], text: str) -> Placed:
        words = text.split()
        negated = words[0].casefold() in self.negations and len(words) > 1
        body = " ".join(words[1:]) if negated else text
        for depth in range(len(stack) - 1, -1, -1):
            mode = stack[depth][0]
            spelled = self.spelled(mode, body)
            if spelled is None:
                continue
            del stack[depth + 1 :]
            headers = tuple(header for _, header in stack[1:])
            line = f"{words[0].casefold()} {spelled}" if negated else spelled
            opens = None if negated else self.opened(mode, spelled)
            if opens is not None:
                stack.append((opens.id, spelled))
            return Placed(text, line, headers, opens=opens.id if opens else None)
        headers = tuple(header for _, header in stack[1:])
        return Placed(text, text, headers, known=False)


def _cased(spelled: Sequence[str], typed: Sequence[str]) -> list[str]:
    """Spelled-out keywords, the other words as typed (names keep their case)."""
    return [
        word if word != typed_word.casefold() else typed_word
        for word, typed_word in zip(spelled, typed, strict=False)
    ] + list(spelled[len(typed) :])
