"""`labbot mcp` as a local agent's client starts it: a process speaking MCP on stdin/stdout (the
official `stdio_client` and `ClientSession`), beside `labbot serve` for Slack on the same
database. The agent's change opens in the Slack stand-in, people approve it there (the serve
side takes the clicks and resumes the change the stdio process opened), the agent waits for it."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

from mcp import ClientSession, StdioServerParameters, stdio_client

from bot.cli.demo import DEMO_CREDENTIALS
from tests.adapters.mcp.agent_stack import (
    AGENT,
    AGENT_SETTINGS,
    COMMUNITY,
    PRINCIPAL,
    TOOLS,
    approve_both_gates,
    call,
    opened_thread,
    plant_secrets,
)
from tests.adapters.slack.stack import SlackLab, slack_lab
from tests.fakes.slack_api import BOT_TOKEN, SIGNING_SECRET, SlackApiStandIn
from tests.support.clock import clock_env

LABBOT = str(Path(sys.executable).with_name("labbot"))


def stdio_server(bot: SlackLab, tmp_path: Path) -> StdioServerParameters:
    """`labbot mcp` on the serve side's database, data folder, lab and Slack workspace."""
    settings = bot.settings
    env = {
        "LABBOT_DATABASE_URL": settings.database_url,
        "LABBOT_DATA_DIR": str(settings.data_dir),
        "LABBOT_INVENTORY": str(tmp_path / "hosts.yaml"),
        "LABBOT_DEVICE_USERNAME": DEMO_CREDENTIALS["username"],
        "LABBOT_DEVICE_PASSWORD": DEMO_CREDENTIALS["password"],
        "LABBOT_DEVICE_SECRET": DEMO_CREDENTIALS["secret"],
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "SLACK_API_URL": bot.api.base_url,
        "LABBOT_MCP_AGENTS": AGENT_SETTINGS["mcp_agents"],
        "LABBOT_MCP_CHANNEL": AGENT_SETTINGS["mcp_channel"],
        "LABBOT_MCP_AGENT": AGENT,
        "LABBOT_RENDER_WORKERS": "0",
    } | clock_env()  # the serve side's clock: a stdio process on another sees its gates expired
    if "PYTHONPATH" in os.environ:  # the code under test, not whatever the venv installed
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return StdioServerParameters(command=LABBOT, args=["mcp"], env=env, cwd=tmp_path)


@contextlib.asynccontextmanager
async def stdio_agent(bot: SlackLab, tmp_path: Path) -> AsyncIterator[ClientSession]:
    with (tmp_path / "labbot-mcp.log").open("w") as errlog:
        async with (
            stdio_client(stdio_server(bot, tmp_path), errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


async def test_a_local_agent_over_stdio_reads_and_asks_for_a_change(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    async with slack_lab(tmp_path, slack_api, **AGENT_SETTINGS, render_workers=0) as bot:
        plant_secrets(bot.lab)
        async with stdio_agent(bot, tmp_path) as agent:
            listed = await agent.list_tools()
            lab = await call(agent, "lab")
            config = await call(agent, "show", command="show running-config", devices=["R1"])
            opened = await call(agent, "request_change", text="configure ospf on all routers")
            root = await opened_thread(bot)
            await approve_both_gates(bot, root.ts, lambda: ["the template gate", "the params gate"])
            done = await call(
                agent, "wait_for_change", change_id=opened["metadata"]["change_id"], seconds=60
            )
    assert {tool.name for tool in listed.tools} == TOOLS
    assert {"R1", "R2", "R3"} <= {item["name"] for item in lab["data"]}
    (running,) = config["data"]
    assert running["status"] == "success" and "snmp-server community ‹secret:" in running["result"]
    assert COMMUNITY not in str(config)
    assert f"{AGENT}* asks on behalf of {PRINCIPAL}" in root.text
    assert done["success"] and done["metadata"]["state"] == "done"
    assert [item["name"] for item in done["data"]] == ["R1", "R2", "R3"]
    assert done["metadata"]["approvers"]["params"] == ["bob (U2)"]
    for router in ("R1", "R2", "R3"):
        assert "router ospf" in bot.lab.device(router).running_config()


async def test_over_stdio_a_blank_or_oversized_argument_is_refused(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    async with (
        slack_lab(tmp_path, slack_api, **AGENT_SETTINGS, render_workers=0) as bot,
        stdio_agent(bot, tmp_path) as agent,
    ):
        blank = await call(agent, "request_change", text="configure ospf", devices=[""])
        large = await call(agent, "show", command="show version", devices=["R" * 100_000])
    assert blank["error"].startswith("Refused: a device name is empty or blank")
    assert "LABBOT_MAX_REQUEST_CHARS" in large["error"] and len(str(large)) < 1000
    assert not [m for m in slack_api.messages.values() if m.thread_ts is None]  # nothing opened
