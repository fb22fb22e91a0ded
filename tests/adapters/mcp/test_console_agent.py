"""An agent whose changes open in the console (`LABBOT_MCP_CHANNEL=console`): `labbot mcp` as a
local agent's client starts it (the official `stdio_client` and `ClientSession`), on the
simulated lab and an SQLite database. Its reads come masked; its change opens a console thread
(on the process's stderr: stdout is MCP's) naming the agent and its principal, its gates saying
where people decide (nobody types into the agent's process); a person decides
in `labbot console` on the same database (`approve chg-…`, twice); the agent's principal
cannot; the agent waits for the push and gets who approved. Over stdio the agent needs no
token (its entry names none); the process says on stderr where its data is; a second process
opens its change in a thread of its own."""

from __future__ import annotations

import asyncio
import contextlib
import os
import pwd
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path

from mcp import ClientSession, StdioServerParameters, stdio_client

from bot.cli.demo import DEMO_CREDENTIALS
from labsim import Lab, demo_topology
from tests.adapters.mcp.agent_stack import AGENT, COMMUNITY, TOOLS, call, plant_secrets
from tests.support.clock import clock_env

LABBOT = str(Path(sys.executable).with_name("labbot"))
PRINCIPAL = "console:alice"  # alice asks through the agent; the OS user decides
AGENTS = f"{AGENT}={PRINCIPAL}"  # stdio: no token, so no hash of one


def lab_env(lab: Lab, tmp_path: Path) -> dict[str, str]:
    """What `labbot mcp` and `labbot console` share: the lab, the database, the data folder;
    and the code under test (PYTHONPATH), not whatever the venv installed."""
    code = {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}
    return (
        code
        | {
            "PATH": os.environ["PATH"],
            "LABBOT_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'labbot.db'}",
            "LABBOT_DATA_DIR": str(tmp_path / "data"),
            "LABBOT_INVENTORY": str(lab.write_inventory(tmp_path / "hosts.yaml")),
            "LABBOT_DEVICE_USERNAME": DEMO_CREDENTIALS["username"],
            "LABBOT_DEVICE_PASSWORD": DEMO_CREDENTIALS["password"],
            "LABBOT_DEVICE_SECRET": DEMO_CREDENTIALS["secret"],
            "LABBOT_MCP_AGENTS": AGENTS,
            "LABBOT_MCP_CHANNEL": "console",
            "LABBOT_RENDER_WORKERS": "0",
        }
        | clock_env()
    )


@contextlib.asynccontextmanager
async def console_agent(env: dict[str, str], tmp_path: Path) -> AsyncIterator[ClientSession]:
    server = StdioServerParameters(
        command=LABBOT, args=["mcp"], env=env | {"LABBOT_MCP_AGENT": AGENT}, cwd=tmp_path
    )
    with (tmp_path / "labbot-mcp.log").open("a") as errlog:
        async with (
            stdio_client(server, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


async def labbot_console(env: dict[str, str], tmp_path: Path, *lines: str) -> str:
    """`labbot console` on the same database, typed `lines` then `quit`; what it printed."""
    process = await asyncio.create_subprocess_exec(
        LABBOT,
        "console",
        cwd=tmp_path,
        env=env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    typed = "".join(f"{line}\n" for line in (*lines, "quit"))
    out, _ = await asyncio.wait_for(process.communicate(typed.encode()), 120)
    assert process.returncode == 0, out.decode()
    return out.decode()


async def test_an_agents_change_opens_in_the_console_and_a_person_approves_it_there(
    tmp_path: Path,
) -> None:
    async with Lab.start(demo_topology(2), **DEMO_CREDENTIALS) as lab:
        plant_secrets(lab)
        env = lab_env(lab, tmp_path)
        async with console_agent(env, tmp_path) as agent:
            listed = await agent.list_tools()
            config = await call(agent, "show", command="show running-config", devices=["R1"])
            opened = await call(agent, "request_change", text="configure ospf on all routers")
            change_id = opened["metadata"]["change_id"]
            async with console_agent(env, tmp_path) as restarted:  # its client started it again
                again = await call(restarted, "request_change", text="configure ntp on R1")
            seated = env | {"LABBOT_CONSOLE_USERS": "alice"}
            refused = await labbot_console(seated, tmp_path, "as alice", f"approve {change_id}")
            approved = await labbot_console(
                env, tmp_path, f"approve {change_id}", f"approve {change_id}"
            )
            done = await call(agent, "wait_for_change", change_id=change_id, seconds=60)
        posted = (tmp_path / "labbot-mcp.log").read_text()
        configs = {router: lab.device(router).running_config() for router in ("R1", "R2")}
    person = pwd.getpwuid(os.getuid()).pw_name
    assert {tool.name for tool in listed.tools} == TOOLS
    (running,) = config["data"]
    assert running["status"] == "success" and "snmp-server community ‹secret:" in running["result"]
    assert COMMUNITY not in str(config)
    assert opened["success"] and opened["metadata"]["thread"].startswith("console:")
    threads = [opened["metadata"]["thread"], again["metadata"]["thread"]]
    assert again["success"] and threads[0] != threads[1], again  # not "waits in this thread"
    assert all(re.fullmatch(r"console:terminal:[0-9a-f]{8}\.m1", t) for t in threads), threads
    data_dir = env["LABBOT_DATA_DIR"]
    assert f"database {tmp_path / 'labbot.db'} (the data folder {data_dir}" in posted
    assert "LABBOT_DATA_DIR sets it" in posted and "`labbot pending`" in posted
    assert f"🤖 {AGENT} asks on behalf of {PRINCIPAL}: configure ospf" in posted  # boxed, wrapped
    assert COMMUNITY not in posted and COMMUNITY not in approved
    # nobody can type into the agent's process: its gates say where people decide
    assert "type the number" not in posted and "nobody types here: people decide in" in posted
    assert "`approve CHANGE_ID`" in posted and "[1]" not in posted, posted  # (boxed, wrapped)
    assert "you requested this change; someone else must approve it" in refused, refused
    assert done["success"] and done["metadata"]["state"] == "done", done
    assert [item["name"] for item in done["data"]] == ["R1", "R2"]
    assert done["metadata"]["approvers"]["params"] == [f"{person} (console:{person})"], done
    assert all("router ospf" in config for config in configs.values())
