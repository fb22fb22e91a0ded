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
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx

_DROPPED = ("content-length", "content-encoding", "transfer-encoding")


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


def _mended_json(data: bytes) -> bytes:
    try:
        answer = json.loads(data)
    except ValueError:
        return data
    return json.dumps(answer).encode() if mend(answer) else data


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


def _mended_event(data: bytes, roled: set[int]) -> bytes:
    try:
        chunk = json.loads(data)
    except ValueError:
        return data
    mended = mend(chunk)
    if drop_repeated_role(chunk, roled) or mended:
        return json.dumps(chunk).encode()
    return data


def _mended_line(line: bytes, roled: set[int]) -> bytes:
    if not line.startswith(b"data:") or line.strip() == b"data: [DONE]":
        return line
    return b"data: " + _mended_event(line[5:].strip(), roled) + b"\n"


class _MendedEvents(httpx.AsyncByteStream):
    def __init__(self, response: httpx.Response) -> None:
        self._response = response
        self._roled: set[int] = set()  # choices whose role came already

    async def __aiter__(self) -> AsyncIterator[bytes]:
        pending = b""
        async for data in self._response.aiter_bytes():
            pending += data
            *lines, pending = pending.split(b"\n")
            yield b"".join(_mended_line(line + b"\n", self._roled) for line in lines)
        if pending:
            yield _mended_line(pending, self._roled)

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
            body = await response.aread()
            return httpx.Response(200, headers=headers, content=_mended_json(body))
        if kind.startswith("text/event-stream"):
            return httpx.Response(200, headers=headers, stream=_MendedEvents(response))
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()
