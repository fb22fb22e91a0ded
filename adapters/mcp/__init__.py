"""The MCP door for AI agents: labbot's tools on the official `mcp` SDK, over stdio and
streamable HTTP (bearer token per agent). Translates, nothing else: what a tool does is the
`AgentDoor` the bot gives it."""

from adapters.mcp.agent_door import AgentDoor, Json, Progress
from adapters.mcp.server import mcp_server

__all__ = ["AgentDoor", "Json", "Progress", "mcp_server"]
