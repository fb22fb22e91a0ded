"""Answers mended on the wire into what the OpenAI protocol specifies, before the openai
client reads them; everything else passes as is.

- Tool-call arguments sent as a JSON object become JSON text. Some servers send
  `"arguments": {...}` (llama.cpp's `llama-server`, ggml-org/llama.cpp#20198 and #20202).
  ChatOpenAI cannot even build its message from that (pydantic refuses a dict where it types a
  string), so no later reading can tolerate it: mended for plain answers and for each
  server-sent event of a streamed one.
- A streamed `role` repeated after a choice's first delta is dropped. Ollama repeats
  `"role": "assistant"` in every chunk (ollama/ollama#7626); the openai client's stream helper
  (ChatOpenAI's way with `response_format`) concatenates the repeats into a role LangChain does
  not know, and the message it builds then carries no `usage_metadata`: measured tokens would
  be reported as estimated.
- What is read is bounded (workflow.llm.bounded_json): every string inside an answer's JSON (a tool
  call's arguments, content) is cut past `STRING_CHARS` with a note, as it streams, and a
  streamed event or a plain body past `ANSWER_CHARS` is not read on: a streamed answer ends
  there as cut off at its budget (`finish_reason: "length"`), a plain body's strings are cut
  there. A server writing megabytes costs neither the megabytes in memory nor LangChain's
  parsing of them; an event left with nothing to say once cut is not passed on.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx

from workflow.llm.bounded_json import ANSWER_CHARS, AnswerCaps, StringCaps

_DROPPED = ("content-length", "content-encoding", "transfer-encoding")
_CUT_OFF_BODY = json.dumps(  # a plain answer not read on: cut off at its budget
    {
        "id": "cut-off",
        "object": "chat.completion",
        "created": 0,
        "model": "",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": ""}, "finish_reason": "length"}
        ],
    }
).encode()


def mend(answer: Any) -> bool:
    """Object arguments in a completion or chunk turned into JSON text; True if any was."""
    mended = False
    for choice in answer.get("choices") or [] if isinstance(answer, dict) else []:
        for part in (choice.get("message"), choice.get("delta")):
            for call in (part or {}).get("tool_calls") or []:
                function = call.get("function") or {}
                if isinstance(function.get("arguments"), dict | list):
                    function["arguments"] = json.dumps(function["arguments"])
                    mended = True
    return mended


def _mended_json(text: str) -> bytes:
    """A plain answer (its strings already cut at `ANSWER_CHARS`) mended, its texts cut."""
    try:
        answer = json.loads(text)
    except ValueError:
        return text.encode()
    for choice in answer.get("choices") or [] if isinstance(answer, dict) else []:
        if isinstance(choice, dict) and isinstance(choice.get("message"), dict):
            AnswerCaps().message(choice["message"])
    mend(answer)
    return json.dumps(answer).encode()


async def _bounded_text(response: httpx.Response) -> str | None:
    """The body, each of its strings cut past `ANSWER_CHARS`; None past twice that in all (a
    body of countless strings), read no further."""
    caps, text, size = StringCaps(ANSWER_CHARS), [], 0
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    try:
        async for data in response.aiter_bytes():
            text.append(caps.feed(decoder.decode(data)))
            size += len(text[-1])
            if size > 2 * ANSWER_CHARS:
                return None
    finally:
        await response.aclose()
    return "".join(text) + caps.feed(decoder.decode(b"", final=True)) + caps.finish()


def drop_repeated_role(chunk: Any, roled: set[int]) -> bool:
    """A streamed chunk without the `role` of choices (by index) in `roled`, which gains the
    choices that sent theirs; True if a repeat was dropped."""
    dropped = False
    for choice in chunk.get("choices") or [] if isinstance(chunk, dict) else []:
        delta = choice.get("delta") or {}
        if "role" not in delta:
            continue
        if choice.get("index", 0) in roled:
            del delta["role"]
            dropped = True
        roled.add(choice.get("index", 0))
    return dropped


class _StreamState:
    """What one streamed answer remembers between its events."""

    def __init__(self) -> None:
        self.roled: set[int] = set()  # choices whose role came already
        self.caps = AnswerCaps()


def _mended_event(data: bytes, state: _StreamState) -> bytes | None:
    """An event mended and its texts cut; None when nothing is left to pass on."""
    try:
        chunk = json.loads(data)
    except ValueError:
        return data
    if not isinstance(chunk, dict):
        return data
    mend(chunk)
    drop_repeated_role(chunk, state.roled)
    return json.dumps(chunk).encode() if state.caps.chunk(chunk) else None


def _mended_line(line: bytes, state: _StreamState) -> bytes:
    if not line.startswith(b"data:") or line.strip() == b"data: [DONE]":
        return line
    event = _mended_event(line[5:].strip(), state)
    return b"" if event is None else b"data: " + event + b"\n"


def _cut_off_event() -> bytes:
    """The end of an answer not read on: cut off at its budget, as a server says it."""
    chunk = {
        "id": "cut-off",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "length"}],
    }
    return b"data: " + json.dumps(chunk).encode() + b"\n\n" + b"data: [DONE]\n\n"


class _MendedEvents(httpx.AsyncByteStream):
    def __init__(self, response: httpx.Response) -> None:
        self._response = response
        self._state = _StreamState()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        pending = b""
        async for data in self._response.aiter_bytes():
            pending += data
            *lines, pending = pending.split(b"\n")
            yield b"".join(_mended_line(line + b"\n", self._state) for line in lines)
            if len(pending) > ANSWER_CHARS:  # one event of megabytes: not read on
                yield _cut_off_event()
                return
        if pending:
            yield _mended_line(pending, self._state)

    async def aclose(self) -> None:
        await self._response.aclose()


class ArgumentsAsText(httpx.AsyncBaseTransport):
    """An httpx transport around another, mending chat-completion answers (module docstring)."""

    def __init__(self, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self._inner = inner or httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        kind = response.headers.get("content-type", "")
        if response.status_code != 200 or not request.url.path.endswith("/chat/completions"):
            return response
        headers = [(k, v) for k, v in response.headers.items() if k.lower() not in _DROPPED]
        if kind.startswith("application/json"):
            text = await _bounded_text(response)
            body = _mended_json(text) if text is not None else _CUT_OFF_BODY
            return httpx.Response(200, headers=headers, content=body)
        if kind.startswith("text/event-stream"):
            return httpx.Response(200, headers=headers, stream=_MendedEvents(response))
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()
