"""JSON text cut as it streams: every string value past a number of characters keeps its start
and ends with the note saying how much was left out, so the JSON stays valid, the rest of the
answer (a template after a runaway description) is kept, and memory does not grow with what a
server sends. Fed piece by piece (an answer's streamed tool-call arguments, a body as it is
read); a piece may end inside a string or an escape."""

from __future__ import annotations

import re
from typing import Any

from workflow.llm.capped_text import cut_note

_RUN = re.compile(r'[^"\\]+')  # characters of a string up to its end or an escape
_ESCAPE = re.compile(r"\\(?:u[0-9a-fA-F]{4}|[^u])")
_ESCAPE_CHARS = 6  # the longest escape, \uXXXX


class StringCaps:
    """Cuts each JSON string in the text fed to it after `limit` characters (an escape counts as
    one); the note goes before the string's closing quote."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.cut = False  # some string was cut
        self._in_string = False
        self._kept = 0  # characters of the current string kept
        self._more = 0  # characters of the current string left out
        self._tail = ""  # an escape split between two pieces

    def feed(self, text: str) -> str:
        """The piece as it is to be read: strings past the limit cut."""
        text, self._tail = self._tail + text, ""
        out: list[str] = []
        at = 0
        while at < len(text):
            if not self._in_string:
                quote = text.find('"', at)
                if quote < 0:
                    out.append(text[at:])
                    break
                out.append(text[at : quote + 1])
                self._in_string, self._kept, self._more = True, 0, 0
                at = quote + 1
            elif text[at] == '"':
                out.append(self._note() + '"')
                self._in_string = False
                at += 1
            elif text[at] == "\\":
                escape = _ESCAPE.match(text, at)
                if escape is None and len(text) - at < _ESCAPE_CHARS:
                    self._tail = text[at:]  # the rest of it comes with the next piece
                    break
                end = escape.end() if escape else at + 2  # a malformed one: as the parser sees it
                self._keep(text[at:end], 1, out)
                at = end
            else:
                run = _RUN.match(text, at)
                assert run is not None  # not at a quote or a backslash: a run starts here
                self._keep(run.group(0), len(run.group(0)), out)
                at = run.end()
        return "".join(out)

    def finish(self) -> str:
        """What is still owed at the end of the text: the note of a string left open."""
        return self._tail + (self._note() if self._in_string else "")

    def _keep(self, written: str, chars: int, out: list[str]) -> None:
        room = max(self.limit - self._kept, 0)
        if chars <= room:
            out.append(written)
            self._kept += chars
            return
        if room:  # a run (an escape is one character): its start fits
            out.append(written[:room])
            self._kept += room
        self._more += chars - room
        self.cut = True

    def _note(self) -> str:
        note = cut_note(self._more) if self._more else ""
        self._more = 0
        return note


STRING_CHARS = 16_000  # a string inside an answer's JSON (its description, each template)
ANSWER_CHARS = 1_000_000  # one streamed event, one string of a plain body, as read
_PIECE = -1  # the key of a choice's content among its tool calls' indexes


class AnswerCaps:
    """The texts of one answer cut as they come: each choice's content and each tool call's
    arguments are JSON (or prose) of their own, each cut apart (`StringCaps`)."""

    def __init__(self, limit: int = STRING_CHARS) -> None:
        self.limit = limit
        self._caps: dict[tuple[int, int], StringCaps] = {}

    def piece(self, choice: int, call: int, text: str) -> str:
        caps = self._caps.setdefault((choice, call), StringCaps(self.limit))
        return caps.feed(text)

    def owed(self, choice: int) -> str:
        """The note a choice's content still owes when it ends inside a string (prose)."""
        caps = self._caps.pop((choice, _PIECE), None)
        return caps.finish() if caps else ""

    def chunk(self, chunk: dict[str, Any]) -> bool:
        """A streamed chunk's pieces cut, in place; False when it has nothing left to say."""
        says = not chunk.get("choices")  # the usage chunk
        for choice in chunk.get("choices") or []:
            index, delta = choice.get("index", 0), choice.get("delta") or {}
            if isinstance(delta.get("content"), str):
                delta["content"] = self.piece(index, _PIECE, delta["content"])
            for call in delta.get("tool_calls") or []:
                function = call.get("function") or {}
                if isinstance(function.get("arguments"), str):
                    piece = function["arguments"]
                    function["arguments"] = self.piece(index, call.get("index", 0), piece)
            if choice.get("finish_reason") is not None and (owed := self.owed(index)):
                delta["content"] = delta.get("content", "") + owed
            says = says or _says(choice)
        return says

    def message(self, message: dict[str, Any]) -> None:
        """A plain answer's message (its content, its tool calls' arguments) cut, in place."""
        if isinstance(message.get("content"), str):
            message["content"] = self.piece(0, _PIECE, message["content"]) + self.owed(0)
        for number, call in enumerate(message.get("tool_calls") or []):
            function = call.get("function") or {}
            if isinstance(function.get("arguments"), str):
                function["arguments"] = self.piece(0, number, function["arguments"])


def _says(choice: dict[str, Any]) -> bool:
    """A streamed choice carries anything beside pieces of text emptied by the cut."""
    delta = choice.get("delta") or {}
    if choice.get("finish_reason") is not None or delta.get("content"):
        return True
    if set(delta) - {"content", "tool_calls"}:
        return True
    for call in delta.get("tool_calls") or []:
        function = call.get("function") or {}
        if set(call) - {"index", "function"} or set(function) - {"arguments"}:
            return True
        if function.get("arguments"):
            return True
    return False
