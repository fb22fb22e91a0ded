"""What AI agents are told over MCP, and what people see of an agent's request in a thread."""

from __future__ import annotations

AGENTS_NEVER_DECIDE = "an AI agent never decides a gate: people approve or refuse in the thread"
AGENT_ASKS = "🤖 *{agent}* asks on behalf of {principal}: {text}"
AGENT_UNKNOWN_TOKEN = (
    "labbot MCP: missing or unknown bearer token; send `Authorization: Bearer <token>` with "
    "a token LABBOT_MCP_AGENTS lists for your agent (`labbot mcp token NAME` makes one)"
)
AGENT_NOT_A_READ = (
    "`{command}` is not a read: `show` takes the read-only commands chat takes (show, "
    "display, bounded ping, run CLI-READ); a change goes through `request_change`"
)
AGENT_TOO_MANY_CALLS = (
    "{agent} made {count} calls in the last minute (at most {limit} a minute, "
    "LABBOT_MCP_CALLS_PER_MINUTE); wait a little"
)
AGENT_NO_SUCH_CHANGE = "no change {change_id} was asked by {agent}"
AGENT_NOT_OPENED = "the change was not opened: {reason}"
AGENT_NO_PLACE = (
    "LABBOT_MCP_CHANNEL: set where agents' changes open (slack:CHANNEL, matrix:ROOM or console)"
)
AGENT_PLACE_PLATFORM = (
    "LABBOT_MCP_CHANNEL: {place!r} is on {platform}, but this process serves {serves}"
)
AGENT_STDIO_MATRIX = (
    "LABBOT_MCP_CHANNEL: {place!r} is served over HTTP only: the bot's Matrix device and its "
    "encryption keys belong to `labbot serve`, and a second process on them would break them; "
    "set LABBOT_MCP_PORT and give the agent http://127.0.0.1:PORT/mcp"
)
AGENT_STDIO_SERVING = (
    "labbot mcp — {lab}, database {db} (the data folder {data_dir}: LABBOT_DATA_DIR sets it, "
    "or LABBOT_DATABASE_URL the database), serving {agent} over stdio; its changes open in "
    "{place}"
)
AGENT_STDIO_LABS = "the labs of {path} (each agent in its own: `agents:`)"
AGENT_CONSOLE_DECIDERS = (
    "`labbot console` on this database (`labbot pending` lists what waits for whom)"
)
AGENT_UNKNOWN = (
    "LABBOT_MCP_AGENT: {name!r} is not one of LABBOT_MCP_AGENTS ({known}); name the agent "
    "this process serves"
)
AGENT_DECIDERS = "{people} (never {requester}, who asked through the agent, nor any agent)"
AGENT_ANYONE_BUT = "anyone in the place but {requester} (who asked through the agent) or an agent"
AGENT_NO_LAB = "the MCP tools need the lab: set LABBOT_INVENTORY or GNS3_URL and GNS3_PROJECT"
AGENT_WAITS_AT = "{change_id} waits at the {step} gate"
AGENT_RUNNING = {
    "planning": "{change_id}: the per-device parameters are being prepared",
    "push": "{change_id}: the approved lines are being pushed",
}
AGENT_ANSWERED = "answered"
AGENT_TOO_MANY_OPEN = (
    "{count} changes this agent asked for wait already (LABBOT_MCP_MAX_OPEN_PER_AGENT); people "
    "finish or cancel one first"
)
AGENT_NO_LISTEN = "LABBOT_MCP_PORT: cannot listen on {where} for agents ({why})"
AGENT_TOO_LARGE = (
    "Refused: this call's arguments come to {size:,} characters; the limit is {limit:,} "
    "(LABBOT_MAX_REQUEST_CHARS). Only their size, sha256 and first characters were recorded."
)
AGENT_NAME_TOO_LONG = (
    "Refused: the name {name!r} is {size:,} characters long; a device, template, change or "
    "lab is named in at most {limit} characters"
)
AGENT_BLANK_DEVICE = (
    "Refused: a device name is empty or blank; name each device as `lab` lists it (leave "
    "`devices` out to mean them all)"
)
AGENT_TOO_MANY_SESSIONS = (
    "labbot MCP: {agent} has {count} sessions open already (at most {limit}, "
    "LABBOT_MCP_SESSIONS_PER_AGENT); end one (an HTTP DELETE, or close the client) first"
)
# many labs (LABBOT_LABS): which lab a call works in (bot.agents.scope)
AGENT_IN_NO_LAB = (
    "{agent} works in no lab: a lab of the labs file (LABBOT_LABS) takes an agent when its "
    "`agents:` names it"
)
AGENT_NAME_A_LAB = "{agent} works in several labs ({labs}): name one as `lab`"
AGENT_NOT_ITS_LAB = "{agent} does not work in lab {lab!r}; its labs: {labs}"
AGENT_LAB_WITHOUT_LABS = (
    "`lab` is for a labbot serving many labs (LABBOT_LABS); this one serves a single lab: "
    "leave `lab` out"
)
AGENT_LAB_NO_PLACE = (
    "lab {lab} has no {platform} place for changes to open in (its `{platform}:` in the labs "
    "file); nothing was opened"
)
AGENT_PLACE_UNKNOWN = (
    "{platform} does not know the place {place} now (is the bot in it?); nothing was opened"
)
