"""A local OpenAI-compatible stand-in: the real `/v1/chat/completions` wire protocol on 127.0.0.1.

Tests script the answers (`server.script(structured({...}), text("..."), ...)`), point the real
`ChatOpenAI` client at `server.base_url`, and read back every request in `server.requests`.

- A `tool_call(name, arguments)` reply calls that tool, as a model driving an agent's tools
  does; `arguments` may be a function of the request's body (read what earlier tools answered).
- A `structured(obj)` reply is answered the way the request asks for structured output: as a
  tool call when the request carries `tools` (ChatOpenAI's `function_calling` method), otherwise
  as JSON in the message content (`json_schema` / `json_mode`), in the shapes of the server
  `profile` (tests/fakes/llm_profiles.py: Ollama, vLLM, llama.cpp, reasoning models, no usage).
  A profile's refusal (e.g. llama.cpp without `--jinja` given `tools`) uses up no reply.
- `max_tokens` / `max_completion_tokens` cut the answer there (`finish_reason: "length"`);
  `"stream": true` is answered as server-sent events (tests/fakes/sse.py).
- `usage` is computed here with one simple tokenizer (`count_tokens`: words and punctuation
  marks), so token figures are comparable between flows measured through the stand-in;
  `tiktoken` cannot download its encodings in this sandbox.
- A stdlib `ThreadingHTTPServer` on a thread serves sync and async clients alike, on any loop.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.fakes import sse
from tests.fakes.llm_profiles import OPENAI, ServerProfile

_TOKEN = re.compile(r"\w+|[^\w\s]")


def count_tokens(text: str) -> int:
    """Words and punctuation marks: a stable stand-in for a BPE tokenizer's count."""
    return len(_TOKEN.findall(text))


@dataclass(frozen=True)
class Reply:
    """One scripted answer. Build it with `structured`, `text` or `error`."""

    kind: str  # "structured", "text", "tool_call" or "error"
    body: Any = None
    status: int = 200
    delay_seconds: float = 0.0  # streamed: spread over the chunks
    in_text: bool = False  # the model ignored the offered tool and wrote JSON in its text


def structured(obj: dict[str, Any], *, delay_seconds: float = 0.0, in_text: bool = False) -> Reply:
    return Reply("structured", obj, delay_seconds=delay_seconds, in_text=in_text)


def text(content: str, *, delay_seconds: float = 0.0) -> Reply:
    return Reply("text", content, delay_seconds=delay_seconds)


def error(status: int, message: str) -> Reply:
    return Reply("error", message, status=status)


Arguments = dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]]


def tool_call(name: str, arguments: Arguments) -> Reply:
    """The model calls the tool `name` (arguments given, or made from the request's body)."""
    return Reply("tool_call", (name, arguments))


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]  # names lower-cased
    body: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", []))

    def prompt_text(self) -> str:
        """Everything the model reads: message contents, then tool and response schemas."""
        parts = [_content_text(m.get("content")) for m in self.messages]
        for key in ("tools", "response_format"):
            if key in self.body:
                parts.append(json.dumps(self.body[key], sort_keys=True))
        return "\n".join(parts)


@dataclass
class _Script:
    replies: deque[Reply] = field(default_factory=deque)
    requests: list[RecordedRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class OpenAIStandIn:
    """`with OpenAIStandIn() as llm: llm.script(...); ChatOpenAI(base_url=llm.base_url, ...)`."""

    def __init__(self, model: str = "stand-in-model", profile: ServerProfile = OPENAI) -> None:
        self.model = model
        self.profile = profile
        self._script = _Script()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def __enter__(self) -> OpenAIStandIn:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def script(self, *replies: Reply) -> None:
        """Queue answers; each request takes the next one, in order."""
        with self._script.lock:
            self._script.replies.extend(replies)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._script.lock:
            return list(self._script.requests)

    @property
    def pending_replies(self) -> int:
        with self._script.lock:
            return len(self._script.replies)

    def _next(self, request: RecordedRequest) -> Reply | tuple[int, str] | None:
        with self._script.lock:
            self._script.requests.append(request)
            refused = self.profile.refusal(request.body)
            if refused is not None:
                return refused
            return self._script.replies.popleft() if self._script.replies else None

    def answer(self, request: RecordedRequest) -> tuple[int, dict[str, Any], float]:
        """The HTTP status, the chat-completion body and the seconds the reply takes."""
        reply = self._next(request)
        if reply is None:
            missing = "the OpenAI stand-in has no scripted reply left for this request"
            return 500, _error_body(missing), 0.0
        if isinstance(reply, tuple):
            return reply[0], _error_body(reply[1]), 0.0
        if reply.kind == "error":
            return reply.status, _error_body(str(reply.body)), reply.delay_seconds
        message = _message_for(reply, request.body, self.profile)
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        limit = request.body.get("max_completion_tokens") or request.body.get("max_tokens")
        if isinstance(limit, int) and _truncate(message, limit):
            finish = "length"
        prompt_tokens = count_tokens(request.prompt_text())
        completion_tokens = count_tokens(_completion_text(message))
        body: dict[str, Any] = {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.body.get("model", self.model),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": None,
                    "finish_reason": finish,
                    **self.profile.extra_choice,
                }
            ],
            **self.profile.extra_body,
        }
        if self.profile.usage:
            body["usage"] = {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            }
        return 200, body, reply.delay_seconds


def _message_for(reply: Reply, body: dict[str, Any], profile: ServerProfile) -> dict[str, Any]:
    if reply.kind == "text":
        return {"role": "assistant", "content": str(reply.body)}
    if reply.kind == "tool_call":
        name, arguments = reply.body
        called = arguments(body) if callable(arguments) else arguments
        function = {"name": name, "arguments": json.dumps(called)}
        call = {"id": f"call_{name}", "type": "function", "function": function}
        return {"role": "assistant", "content": None, "tool_calls": [call]}
    return profile.structured_message(reply.body, body, reply.in_text)


def _completion_text(message: dict[str, Any]) -> str:
    """Everything the model wrote: its reasoning, its text and its tool calls' arguments."""
    arguments = [call["function"]["arguments"] for call in message.get("tool_calls") or []]
    return "".join(
        [
            message.get("reasoning_content") or "",
            message.get("content") or "",
            *(a if isinstance(a, str) else json.dumps(a) for a in arguments),
        ]
    )


def _truncate(message: dict[str, Any], limit: int) -> bool:
    """Cut the message after `limit` tokens, as a server does at `max_tokens`; True if cut."""
    used = count_tokens(message.get("reasoning_content") or "")
    for key, holder in [("content", message)] + [
        ("arguments", call["function"]) for call in message.get("tool_calls") or []
    ]:
        text = holder.get(key)
        if not isinstance(text, str):
            continue
        marks = list(_TOKEN.finditer(text))
        if used + len(marks) > limit:
            keep = max(limit - used, 0)
            holder[key] = text[: marks[keep].start()] if keep < len(marks) else text
            return True
        used += len(marks)
    return used > limit


def _content_text(content: Any) -> str:
    if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}, ...]
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return "" if content is None else str(content)


def _error_body(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "code": None}}


def _handler_for(standin: OpenAIStandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            raw = self.rfile.read(length) if length else b"{}"
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, _error_body(f"the stand-in does not serve {self.path}"))
                return
            headers = {k.lower(): v for k, v in self.headers.items()}
            request = RecordedRequest(self.path, headers, json.loads(raw))
            status, body, seconds = standin.answer(request)
            if status == 200 and request.body.get("stream") and standin.profile.streams:
                options = request.body.get("stream_options") or {}
                usage = bool(options.get("include_usage"))
                every = standin.profile.role_every_chunk
                self._stream(sse.chunks(body, usage=usage, role_every_chunk=every), seconds)
                return
            time.sleep(seconds)
            self._send(status, body)

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, {"object": "list", "data": [{"id": standin.model}]})
            else:
                self._send(404, _error_body(f"the stand-in does not serve {self.path}"))

        def _send(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout tests); nothing left to tell it

        def _stream(self, chunks: list[dict[str, Any]], seconds: float) -> None:
            try:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                for chunk in chunks:
                    time.sleep(seconds / len(chunks))
                    self.wfile.write(sse.event(chunk))
                    self.wfile.flush()
                self.wfile.write(sse.DONE)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout tests)
            self.close_connection = True

        def log_message(self, format: str, *args: Any) -> None:
            """Keep test output quiet; requests are recorded in `standin.requests`."""

    return Handler
