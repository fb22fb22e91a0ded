"""labbot's MCP tools on the SDK's `MCPServer`: names, argument schemas and descriptions an
agent plans with; each answer is the standard response as structured content (and as JSON text
for clients that read only text). Who calls is told by `who` (the stdio process's configured
agent, or the agent whose bearer token the HTTP request carried)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated

from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from adapters.mcp.agent_door import AgentDoor, Answer, Json

INSTRUCTIONS = """\
labbot is the door to a team's network lab. Reads are direct: `lab` lists the devices and links,
`show` runs read-only commands (the team's allow-list), `templates` lists the configuration
templates. Changes are never made by you: `request_change` opens the change in the team's chat
thread, where people approve the template and then the rendered per-device configuration; you
follow it with `change_status` or `wait_for_change`. No tool approves, modifies or cancels.
Every answer has success, total, successful, failed, data (one item per device or template,
with status success|failed and result or error), error and metadata. A labbot serving many
labs works in one lab per call: the one your token works in, or the one you name as `lab` (when
it works in several, every call names one; metadata.lab says which lab answered)."""

READS = ToolAnnotations(read_only_hint=True, open_world_hint=False)
Devices = Annotated[
    list[str], Field(description='Device names as `lab` lists them, e.g. ["R1", "R2"].')
]
ChangeId = Annotated[str, Field(description="The change id request_change returned (chg-…).")]
LabName = Annotated[
    str | None,
    Field(
        description="The lab to work in, when labbot serves many labs and your token works in "
        "several (a refusal lists yours); leave it out otherwise."
    ),
]
Reply = Annotated[CallToolResult, Answer]


def mcp_server(
    door: AgentDoor,
    who: Callable[[], str],
    *,
    token_verifier: TokenVerifier | None = None,
    auth: AuthSettings | None = None,
) -> MCPServer:
    """The MCP server whose tools ask `door`, in the name of the agent `who()` names."""
    server: MCPServer = MCPServer(
        "labbot", instructions=INSTRUCTIONS, token_verifier=token_verifier, auth=auth
    )

    @server.tool(annotations=READS)
    async def lab(lab: LabName = None) -> Reply:
        """The lab's devices — one item each with platform (netmiko type), kind (router,
        switch, …), transport, and whether it answers now (failed: unreachable, with why) —
        and its links (metadata.links) and the nodes labbot does not use (metadata.left_out)."""
        return _reply(await door.lab(who(), lab))

    @server.tool(annotations=READS)
    async def show(
        command: Annotated[
            str,
            Field(
                description="A read-only CLI command the team's allow-list takes: `show ip "
                "interface brief`, `show running-config`, `display …`, a bounded `ping`, or "
                "`run <CLI read>`. Anything else is refused with what is allowed."
            ),
        ],
        devices: Devices,
        lab: LabName = None,
    ) -> Reply:
        """Run a read-only command on the named devices, as a person's `show … on R1` in chat:
        the same allow-list, refusals, per-caller rate limit and audit. One item per device
        with its output (secret values masked) or its error."""
        return _reply(await door.show(who(), command, devices, lab))

    @server.tool(annotations=READS)
    async def templates(lab: LabName = None) -> Reply:
        """The template library (built-in and the team's saved versions): per template its
        description (result), params (JSON-schema-like types, defaults), the configuration
        sections it may touch, vendor families, whether it has post-checks, and its sha256.
        Name one in request_change's `template` to use it."""
        return _reply(await door.templates(who(), lab))

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
    async def request_change(
        text: Annotated[
            str,
            Field(
                description="What to change, in plain words as a person would ask: `configure "
                "ospf on all routers`, `ntp servers=10.0.0.1` (with a template: key=value "
                "parameters)."
            ),
        ],
        devices: Annotated[
            list[str] | None, Field(description="Limit the change to these devices.")
        ] = None,
        template: Annotated[
            str | None,
            Field(description="A template from `templates` (name or name@version) to use."),
        ] = None,
        lab: LabName = None,
    ) -> Reply:
        """Ask the team for a change. It opens in their chat thread (saying which agent asks and
        on whose behalf), where people approve the template and then the per-device
        configuration; nothing is pushed before they do. Returns at once with the change id
        (metadata.change_id), the thread's link (metadata.thread) and its first step."""
        return _reply(await door.request_change(who(), text, devices or [], template, lab))

    @server.tool(annotations=READS)
    async def change_status(change_id: ChangeId, lab: LabName = None) -> Reply:
        """Where a change you asked for stands. Open: metadata.step (template or params gate),
        may_decide, waiting_for, expires_at. Ended: metadata.state (done, cancelled, failed,
        expired…), one item per device (pushed, result or error, post_checks, lines_sha256),
        metadata.approvers per gate and metadata.templates with their sha256."""
        return _reply(await door.change_status(who(), change_id, lab))

    @server.tool(annotations=READS)
    async def wait_for_change(
        change_id: ChangeId,
        ctx: Context,
        seconds: Annotated[
            float, Field(ge=0, description="How long to wait at most (the server bounds it).")
        ] = 300,
        lab: LabName = None,
    ) -> Reply:
        """Wait until the change ends, or `seconds` pass, sending progress notifications as its
        step changes; then answer as change_status does (still open: metadata.state = open)."""
        answer = await door.wait_for_change(who(), change_id, seconds, ctx.report_progress, lab)
        return _reply(answer)

    return server


def _reply(answer: Json) -> CallToolResult:
    """The answer as structured content and as JSON text; a call refused as a whole (an error,
    no item) is a tool error the agent sees as such."""
    text = json.dumps(answer, ensure_ascii=False)
    whole_failure = bool(answer.get("error")) and not answer.get("data")
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=answer,
        is_error=whole_failure,
    )
