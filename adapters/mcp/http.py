"""The MCP endpoint over streamable HTTP: the SDK's app behind the SDK's bearer-token backend,
one token per agent, with a cap of open sessions per agent (adapters.mcp.sessions). A request
without a known token is answered 401 with one line saying what to send; the agent a token
belongs to is the `client_id` of its access token."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable

import uvicorn
from mcp.server.auth.middleware.auth_context import AuthContextMiddleware, get_access_token
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, BearerAuthBackend
from mcp.server.auth.provider import AccessToken
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

from adapters.mcp.agent_door import AgentDoor
from adapters.mcp.server import mcp_server
from adapters.mcp.sessions import SessionsPerAgent

__all__ = ["http_app", "serve_http"]

PATH = "/mcp"
SESSION_IDLE_SECONDS = 30 * 60  # the SDK closes a session idle this long (its default)


class AgentTokens:
    """The SDK's `TokenVerifier` over `agent_of` (a token -> its agent's name, or None)."""

    def __init__(self, agent_of: Callable[[str], str | None]) -> None:
        self._agent_of = agent_of

    async def verify_token(self, token: str) -> AccessToken | None:
        agent = self._agent_of(token)
        return None if agent is None else AccessToken(token=token, client_id=agent, scopes=[])


class RequireAgent:
    """Lets through only requests a known agent's token authenticated; others get a 401 whose
    body is one line of `refusal`."""

    def __init__(self, app: ASGIApp, refusal: str) -> None:
        self.app = app
        self.body = (refusal + "\n").encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or isinstance(scope.get("user"), AuthenticatedUser):
            await self.app(scope, receive, send)
            return
        headers = [
            (b"content-type", b"text/plain; charset=utf-8"),
            (b"content-length", str(len(self.body)).encode()),
            (b"www-authenticate", b'Bearer error="invalid_token"'),
        ]
        await send({"type": "http.response.start", "status": 401, "headers": headers})
        await send({"type": "http.response.body", "body": self.body})


def calling_agent() -> str:
    """The agent whose token authenticated the request being handled."""
    token = get_access_token()
    if token is None:  # RequireAgent lets no such request through
        raise PermissionError("no agent authenticated this request")
    return token.client_id


def http_app(
    door: AgentDoor,
    agent_of: Callable[[str], str | None],
    refusal: str,
    *,
    sessions_per_agent: int = 8,
    too_many_sessions: Callable[[str, int], str] = lambda agent, count: "too many sessions",
) -> ASGIApp:
    """The MCP endpoint at /mcp (its session manager runs in the app's lifespan); each agent
    may hold `sessions_per_agent` sessions open, one more is refused with `too_many_sessions`."""
    server = mcp_server(door, calling_agent)
    app = server.streamable_http_app(
        streamable_http_path=PATH, session_idle_timeout=SESSION_IDLE_SECONDS
    )
    capped = SessionsPerAgent(app, sessions_per_agent, SESSION_IDLE_SECONDS, too_many_sessions)
    guarded = AuthContextMiddleware(RequireAgent(capped, refusal))
    return AuthenticationMiddleware(guarded, backend=BearerAuthBackend(AgentTokens(agent_of)))


async def serve_http(
    app: ASGIApp, host: str, port: int, ready: Callable[[int], Awaitable[None] | None]
) -> None:
    """Serve `app` until cancelled; `ready(port)` once it listens (port 0: a free one). A port
    that cannot be bound is an OSError here, before anything is served."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listening = socket.create_server((host, port), family=family)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    serving = asyncio.create_task(server.serve(sockets=[listening]))
    try:
        told = ready(listening.getsockname()[1])
        if told is not None:
            await told
        await asyncio.shield(serving)  # a cancel stops it below, through its own shutdown
    finally:
        if not serving.done():
            server.should_exit = True
            await serving
        listening.close()
