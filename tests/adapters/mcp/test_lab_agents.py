"""Agents scoped to labs: `labbot serve` of two simulated labs with the same router names (red,
blue) on the Slack stand-in, its one MCP endpoint serving both, the official MCP client over
HTTP. red is the lab of LABBOT_MCP_CHANNEL and names no agents, so it takes every agent; blue
takes only `both-agent`. An agent of one lab works there by default and is refused elsewhere
naming its labs; an agent of both names the lab; a change opens in its lab's channel (blue's
written `#blue-lab`, opened by its id) and is pushed to that lab's routers only; another lab's
change reads as no change; every call's audit row names its lab."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from adapters.slack.adapter import SlackAdapter
from bot.cli.serve import serving
from bot.policy.agent_principals import token_hash
from bot.runtime.agent_tools import AgentLabs
from bot.settings import load_settings
from labsim import Lab
from storage.audit_store import AuditStore
from tests.adapters.mcp.agent_stack import agent_session, call, endpoint_on
from tests.adapters.mcp.test_console_agent import LABBOT, console_agent, lab_env
from tests.adapters.slack.serving import http_adapter, running
from tests.bot.labs.slack_labs import InChannels
from tests.fakes.slack_api import BOT_TOKEN, SIGNING_SECRET, Posted, SlackApiStandIn, SlackSender
from tests.support.two_labs import DEVICE_LOGIN, two_labs

TOKENS = {"red-agent": "lbt_red-agent-token", "both-agent": "lbt_both-agent-token"}
PRINCIPALS = {"red-agent": "U1", "both-agent": "U3"}
LABS = """\
labs:
  red:
    inventory: red/hosts.yaml
    slack: C0RED
    approvers: [U2]
  blue:
    inventory: blue/hosts.yaml
    slack: "#blue-lab"
    approvers: [U2]
    agents: [both-agent]
"""


@dataclass
class Served(InChannels):
    adapter: SlackAdapter
    url: str  # the MCP endpoint
    audit: AuditStore  # the labs' one database

    async def root(self, channel: str, agent: str) -> Posted:
        """The thread an agent's change opened in `channel` (its first message names it)."""
        return await self.api.wait_for(
            lambda: next(
                (
                    m
                    for m in self.api.messages.values()
                    if m.channel == channel and m.thread_ts is None and agent in m.text
                ),
                None,
            )
        )

    async def decide(self, channel: str, thread: str, label: str) -> None:
        """bob (U2, the labs' approver) presses `label` once it is offered in the thread."""
        gate = await self.gate(channel, thread, label)
        await self.press(gate, label, user="U2", name="bob")


@contextlib.asynccontextmanager
async def serve_two_labs(tmp_path: Path, api: SlackApiStandIn) -> AsyncIterator[Served]:
    """`labbot serve`'s own `serving` (the router over both labs, and what its MCP endpoint
    serves) beside the Slack adapter in HTTP mode, the endpoint on a free port."""
    (tmp_path / "labs.yaml").write_text(LABS)
    agents = ";".join(f"{a}={PRINCIPALS[a]} {token_hash(t)}" for a, t in TOKENS.items())
    settings = load_settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'labbot.db'}",
        data_dir=tmp_path,
        slack_bot_token=BOT_TOKEN,
        slack_signing_secret=SIGNING_SECRET,
        slack_api_url=api.base_url,
        labs=tmp_path / "labs.yaml",
        mcp_agents=agents,
        mcp_channel="slack:C0RED",
        mcp_port=8765,  # serves agents; the endpoint below listens on a free port instead
        **DEVICE_LOGIN,
    )
    adapter = http_adapter(api)
    async with serving(settings, adapter) as served:
        assert isinstance(served.agents, AgentLabs) and served.agents.home == "red"
        async with (
            running(adapter, served.handle),
            SlackSender(adapter.transport.url) as slack,  # type: ignore[attr-defined]
            endpoint_on(settings, served.agents) as url,
        ):
            yield Served(api, slack, adapter, url, next(iter(served.runtimes)).audit)


def ospf_on(lab: Lab) -> list[str]:
    return [d.name for d in lab.devices if "router ospf" in d.running_config()]


async def test_agents_work_in_their_labs_only(tmp_path: Path, slack_api: SlackApiStandIn) -> None:
    slack_api.channels.update({"C0RED": "red-lab", "C0BLUE": "blue-lab", "C0ELSE": "random"})
    async with (
        two_labs(tmp_path) as labs,
        serve_two_labs(tmp_path, slack_api) as bot,
        agent_session(bot.url, TOKENS["red-agent"]) as red_agent,
        agent_session(bot.url, TOKENS["both-agent"]) as both_agent,
    ):
        # an agent of one lab: that lab by default, the other refused naming its labs
        listed = await red_agent.list_tools()
        red_lab = await call(red_agent, "lab")
        elsewhere = await red_agent.call_tool("lab", {"lab": "blue"})
        nowhere = await call(red_agent, "show", command="show version", devices=["R1"], lab="x")
        # it asks in red: the change opens in red's channel, bob approves, red's routers only
        opened = await call(red_agent, "request_change", text="configure ospf on all routers")
        red_root = await bot.root("C0RED", "red-agent")
        await bot.decide("C0RED", red_root.ts, "Approve")
        await bot.decide("C0RED", red_root.ts, "Execute")
        await bot.said("C0RED", red_root.ts, "pushed")
        red_done = await call(red_agent, "change_status", change_id=opened["metadata"]["change_id"])

        # an agent of both labs names one; its change in blue opens in #blue-lab, by its id
        unnamed = await call(both_agent, "lab")
        blue_lab = await call(both_agent, "lab", lab="blue")
        asked = await call(
            both_agent,
            "request_change",
            text="configure ntp on R1 servers=10.0.0.9",
            lab="blue",
        )
        blue_change = asked["metadata"]["change_id"]
        blue_root = await bot.root("C0BLUE", "both-agent")
        await bot.decide("C0BLUE", blue_root.ts, "Approve")
        await bot.decide("C0BLUE", blue_root.ts, "Execute")
        await bot.said("C0BLUE", blue_root.ts, "pushed")
        blue_done = await call(both_agent, "change_status", change_id=blue_change, lab="blue")

        # another lab's change, or another agent's, reads exactly as a change never made
        in_red = await call(both_agent, "change_status", change_id=blue_change, lab="red")
        unknown = await call(both_agent, "change_status", change_id="chg-0badc0de", lab="red")
        not_red_agents = await call(red_agent, "change_status", change_id=blue_change)
        waited = await call(
            both_agent, "wait_for_change", change_id=blue_change, seconds=1, lab="red"
        )
        audit = await agent_calls(bot.audit)

    lab_tool = next(tool for tool in listed.tools if tool.name == "lab")
    assert "lab" in lab_tool.input_schema["properties"]
    assert red_lab["metadata"]["lab"] == "red"
    assert [item["name"] for item in red_lab["data"]] == ["R1", "R2", "R3"]
    assert elsewhere.is_error
    refused = elsewhere.structured_content or {}
    assert refused["error"] == "red-agent does not work in lab 'blue'; its labs: red"
    assert nowhere["error"] == "red-agent does not work in lab 'x'; its labs: red"
    assert "blue" not in str(refused.get("metadata"))  # nothing of blue served

    assert opened["metadata"]["lab"] == "red" and opened["metadata"]["step"] == "template"
    assert red_done["metadata"]["state"] == "done" and red_done["successful"] == 3
    assert ospf_on(labs["red"]) == ["R1", "R2", "R3"] and ospf_on(labs["blue"]) == []

    assert unnamed["error"] == "both-agent works in several labs (red, blue): name one as `lab`"
    assert [item["name"] for item in blue_lab["data"]] == ["R1", "R2"]
    assert asked["metadata"]["lab"] == "blue" and blue_root.channel == "C0BLUE"
    assert asked["metadata"]["thread"].startswith("https://slack.com/archives/C0BLUE/")
    assert blue_done["metadata"]["state"] == "done"
    assert [item["name"] for item in blue_done["data"]] == ["R1"]
    assert "ntp server 10.0.0.9" in labs["blue"].device("R1").running_config()
    assert "ntp server 10.0.0.9" not in labs["red"].device("R1").running_config()
    assert not [m for m in slack_api.messages.values() if m.channel == "#blue-lab"]

    assert in_red["error"] == f"no change {blue_change} was asked by both-agent"
    assert unknown["error"] == "no change chg-0badc0de was asked by both-agent"
    assert {k: v for k, v in in_red.items() if k != "error"} == {
        k: v for k, v in unknown.items() if k != "error"
    }
    assert not_red_agents["error"] == f"no change {blue_change} was asked by red-agent"
    assert waited["error"] == in_red["error"]

    assert audit == [
        ("red-agent", "lab", "red", "answered"),
        ("red-agent", "lab", "", "refused"),
        ("red-agent", "show", "", "refused"),
        ("red-agent", "request_change", "red", "answered"),
        ("red-agent", "change_status", "red", "answered"),
        ("both-agent", "lab", "", "refused"),
        ("both-agent", "lab", "blue", "answered"),
        ("both-agent", "request_change", "blue", "answered"),
        ("both-agent", "change_status", "blue", "answered"),
        ("both-agent", "change_status", "red", "refused"),
        ("both-agent", "change_status", "red", "refused"),
        ("red-agent", "change_status", "red", "refused"),
        ("both-agent", "wait_for_change", "red", "refused"),
    ]


async def agent_calls(audit: AuditStore) -> list[tuple[str, str, str, str]]:
    """Each agent call's audit row: the agent, the tool, the lab it names, answered or not."""
    return [
        (
            entry.actor_id.removeprefix("agent:"),
            entry.gate,
            entry.lab,
            "answered" if entry.status == "answered" else "refused",
        )
        for entry in await audit.entries()
        if entry.kind == "agent"
    ]


CONSOLE_LABS = """\
labs:
  red:
    inventory: red/hosts.yaml
    agents: [claude-code]
  blue:
    inventory: blue/hosts.yaml
"""


async def test_a_local_agent_over_stdio_works_in_its_labs_too(tmp_path: Path) -> None:
    """`labbot mcp` with LABBOT_LABS and a console place: the agent works in red only (blue
    names no agents and no lab's place is the console); its change opens in the console and is
    decided in `labbot console --lab red`."""
    async with two_labs(tmp_path) as labs:
        (tmp_path / "labs.yaml").write_text(CONSOLE_LABS)
        env = lab_env(labs["red"], tmp_path)
        del env["LABBOT_INVENTORY"]
        env["LABBOT_LABS"] = str(tmp_path / "labs.yaml")
        async with console_agent(env, tmp_path) as agent:
            red = await call(agent, "lab")
            blue = await call(agent, "lab", lab="blue")
            ntp = "configure ntp on R1 servers=10.0.0.7"
            opened = await call(agent, "request_change", text=ntp)
            change_id = opened["metadata"]["change_id"]
            elsewhere = await console_of(env, tmp_path, "blue")
            approved = await console_of(
                env, tmp_path, "red", f"approve {change_id}", f"approve {change_id}"
            )
            done = await call(agent, "wait_for_change", change_id=change_id, seconds=60)
        posted = (tmp_path / "labbot-mcp.log").read_text()
    assert [item["name"] for item in red["data"]] == ["R1", "R2", "R3"]
    assert red["metadata"]["lab"] == "red"
    assert blue["error"] == "claude-code does not work in lab 'blue'; its labs: red"
    assert opened["metadata"]["lab"] == "red" and opened["metadata"]["state"] == "open"
    assert f"the labs of {tmp_path / 'labs.yaml'}" in posted
    assert change_id not in elsewhere and change_id in approved  # offered in its lab only
    assert done["metadata"]["state"] == "done", done
    assert "ntp server 10.0.0.7" in labs["red"].device("R1").running_config()
    assert "ntp server 10.0.0.7" not in labs["blue"].device("R1").running_config()


async def console_of(env: dict[str, str], tmp_path: Path, lab: str, *lines: str) -> str:
    """`labbot console --lab LAB` on the same database, typed `lines` then `quit`."""
    process = await asyncio.create_subprocess_exec(
        LABBOT,
        "console",
        "--lab",
        lab,
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
