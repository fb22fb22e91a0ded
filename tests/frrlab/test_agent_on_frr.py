"""An AI agent asks for OSPF on real FRR routers over MCP (the official client, streamable HTTP);
people approve at the console; the agent's answer carries each router's post-checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.chat import ThreadRef
from bot.cli.demo import demo_settings
from bot.policy.agent_principals import token_hash
from bot.runtime.wiring import open_runtime
from bot.settings import load_settings
from frrlab import FrrLab
from tests.adapters.mcp.agent_stack import AGENT, TOKEN, agent_session, call, endpoint_on
from tests.bot.chat import RecordingAdapter, click
from workflow.devices.inventories.static import StaticInventory

pytestmark = [
    pytest.mark.frr,
    pytest.mark.usefixtures("frr_host"),
    pytest.mark.xdist_group("frr-lab"),
]


async def test_an_agent_asks_for_ospf_on_frr_and_reads_the_post_checks(tmp_path: Path) -> None:
    chat = RecordingAdapter()  # the console: people decide there
    agents = {"mcp_agents": f"{AGENT}=console:alice {token_hash(TOKEN)}", "mcp_channel": "console"}
    settings = demo_settings(load_settings(data_dir=tmp_path, **agents))
    async with FrrLab.start() as lab:
        inventory = StaticInventory(lab.write_inventory(tmp_path / "hosts.yaml", "telnet"))
        async with (
            open_runtime(settings, chat, inventory=inventory) as bot,
            endpoint_on(settings, bot) as url,
            agent_session(url) as agent,
        ):
            text = "configure ospf on all routers with hello-interval 1"
            opened = await call(agent, "request_change", text=text)
            root, _, _ = chat.posts[0]
            thread = ThreadRef("console", "terminal", root)
            for _ in ("template", "params"):
                await bot.service.handle(click(chat, "bob", thread=thread))
            ended = await call(
                agent, "wait_for_change", change_id=opened["metadata"]["change_id"], seconds=120
            )
    assert f"{AGENT}* asks on behalf of console:alice" in chat.texts()[0]
    assert ended["success"] and ended["metadata"]["state"] == "done"
    assert [item["name"] for item in ended["data"]] == ["R1", "R2", "R3"]
    checks = {item["name"]: item["post_checks"] for item in ended["data"]}
    assert {name: check["kind"] for name, check in checks.items()} == dict.fromkeys(
        ("R1", "R2", "R3"), "passed"
    )
    met = {(fact["check"], fact["key"]) for fact in checks["R2"]["met"]}
    assert {key for kind, key in met if kind.startswith("ospf")} >= {"10.0.12.1", "10.0.23.2"}
    assert ended["metadata"]["approvers"]["params"] == ["bob (console:bob)"]
