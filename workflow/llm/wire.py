"""Tool-call arguments sent as a JSON object become the JSON string the OpenAI protocol
specifies, before the openai client reads the answer.

Some servers send `"arguments": {...}` (llama.cpp's `llama-server`, ggml-org/llama.cpp#20198
and #20202). ChatOpenAI cannot even build its message from that (pydantic refuses a dict where
it types a string), so no later reading can tolerate it: it is mended here, on the wire, for
plain answers and for each server-sent event of a streamed one. Everything else passes as is.
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


def _mended_line(line: bytes) -> bytes:
    if not line.startswith(b"data:") or line.strip() == b"data: [DONE]":
        return line
    return b"data: " + _mended_json(line[5:].strip()) + b"\n"


class _MendedEvents(httpx.AsyncByteStream):
    def __init__(self, response: httpx.Response) -> None:
        self._response = response

    async def __aiter__(self) -> AsyncIterator[bytes]:
        pending = b""
        async for data in self._response.aiter_bytes():
            pending += data
            *lines, pending = pending.split(b"\n")
            yield b"".join(_mended_line(line + b"\n") for line in lines)
        if pending:
            yield _mended_line(pending)

    async def aclose(self) -> None:
        await self._response.aclose()


class ArgumentsAsText(httpx.AsyncBaseTransport):
    """An httpx transport around another, mending chat-completion answers (`mend`)."""

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
