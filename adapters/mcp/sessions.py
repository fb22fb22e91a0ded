"""Open MCP sessions counted per agent over streamable HTTP, so one agent cannot take the
SDK's sessions (10,000 for everyone) from the others: past its limit, a request that would open
one more is answered 429 with one line saying why.

A session is open from the answer that gave its id (the `mcp-session-id` header of a
successful opening request) until the client ends it (DELETE), the SDK no longer knows it (404)
or no request of it has been in flight for the SDK's idle timeout (the SDK closes it then).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from starlette.types import ASGIApp, Message, Receive, Scope, Send

SESSION_HEADER = b"mcp-session-id"
INVALID_REQUEST = -32600  # JSON-RPC's code, as the SDK answers a session it refuses


@dataclass
class Use:
    """One open session: its requests in flight and when the last one ended."""

    in_flight: int = 0
    last: float = 0.0


class SessionsPerAgent:
    """At most `limit` open sessions per agent (the `client_id` its token authenticated);
    `refusal(agent, count)` is the line a request over it is answered with."""

    def __init__(
        self,
        app: ASGIApp,
        limit: int,
        idle_seconds: float,
        refusal: Callable[[str, int], str],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.app = app
        self.limit = limit
        self.idle_seconds = idle_seconds
        self.refusal = refusal
        self.clock = clock
        self.sessions: dict[str, dict[str, Use]] = {}  # agent -> session id -> its use
        self.opening: dict[str, int] = {}  # agent -> opening requests not answered yet

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        user = scope.get("user")
        if scope["type"] != "http" or not isinstance(user, AuthenticatedUser):
            await self.app(scope, receive, send)
            return
        agent = user.access_token.client_id
        session = dict(scope["headers"]).get(SESSION_HEADER, b"").decode("latin-1")
        if session:
            await self._within(agent, session, scope, receive, send)
            return
        count = len(self.open_sessions(agent)) + self.opening.get(agent, 0)
        if count >= self.limit:
            await _refuse(send, self.refusal(agent, count))
            return
        self.opening[agent] = self.opening.get(agent, 0) + 1
        answered: dict[str, object] = {}
        try:
            await self.app(scope, receive, _watching(send, answered))
        finally:
            self.opening[agent] -= 1
        opened = answered.get("session")
        if isinstance(opened, str) and int(str(answered.get("status", 500))) < 400:
            self.sessions.setdefault(agent, {})[opened] = Use(last=self.clock())

    def open_sessions(self, agent: str) -> dict[str, Use]:
        """The agent's sessions still open (those idle past the SDK's timeout are forgotten)."""
        now = self.clock()
        held = self.sessions.get(agent, {})
        for session, use in list(held.items()):
            if use.in_flight == 0 and now - use.last > self.idle_seconds:
                del held[session]
        return held

    async def _within(
        self, agent: str, session: str, scope: Scope, receive: Receive, send: Send
    ) -> None:
        """A request of an open session: it keeps it alive; a DELETE or a 404 ends it."""
        use = self.sessions.get(agent, {}).get(session)
        if use is None:  # not this agent's, or already over: the SDK answers it
            await self.app(scope, receive, send)
            return
        use.in_flight += 1
        answered: dict[str, object] = {}
        try:
            await self.app(scope, receive, _watching(send, answered))
        finally:
            use.in_flight -= 1
            use.last = self.clock()
        status = int(str(answered.get("status", 500)))
        if status == 404 or (scope["method"] == "DELETE" and status < 400):
            self.sessions.get(agent, {}).pop(session, None)


def _watching(send: Send, answered: dict[str, object]) -> Send:
    """`send`, noting the answer's status and the session id it gives, if any."""

    async def watch(message: Message) -> None:
        if message["type"] == "http.response.start":
            answered["status"] = message["status"]
            for name, value in message.get("headers", []):
                if name.lower() == SESSION_HEADER:
                    answered["session"] = value.decode("latin-1")
        await send(message)

    return watch


async def _refuse(send: Send, line: str) -> None:
    """429 with a JSON-RPC error whose message is `line` (clients show it as the failure)."""
    error = {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": line}}
    body = json.dumps(error, ensure_ascii=False).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    await send({"type": "http.response.start", "status": 429, "headers": headers})
    await send({"type": "http.response.body", "body": body})
