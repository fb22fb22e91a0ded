"""An AI agent over streamable HTTP (the official `mcp.ClientSession`, a bearer token) asks for a
change; people approve it in the Slack stand-in's thread; the simulated lab is configured; the
audit names the agent, its principal and the approvers. Agents never decide."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from typing import Any

import httpx2
import pytest

from base.errors import ConfigError
from bot.runtime.serve_mcp import serve_agents
from tests.adapters.mcp.agent_stack import (
    AGENT,
    AGENT_SETTINGS,
    COMMUNITY,
    PRINCIPAL,
    TOOLS,
    agent_session,
    approve_both_gates,
    call,
    mcp_endpoint,
    opened_thread,
    plant_secrets,
)
from tests.adapters.mcp.scripted_agent import last_tool_answer, run_agent
from tests.adapters.slack.payloads import click
from tests.adapters.slack.stack import slack_lab
from tests.fakes.openai_server import OpenAIStandIn, text, tool_call
from tests.fakes.slack_api import SlackApiStandIn

ROUTERS = ("R1", "R2", "R3")
TWO_PEOPLE = {"template_approvals": 2, "push_approvals": 2}
PEOPLE = (("U2", "bob"), ("U3", "carol"))


async def test_reads_answer_in_the_standard_format_with_secrets_masked(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    async with slack_lab(tmp_path, slack_api, **AGENT_SETTINGS) as bot:
        plant_secrets(bot.lab)
        async with mcp_endpoint(bot) as url, agent_session(url) as agent:
            listed = await agent.list_tools()
            lab = await call(agent, "lab")
            brief = await call(agent, "show", command="show ip interface brief", devices=["R1"])
            config = await call(agent, "show", command="show running-config", devices=["R1"])
            library = await call(agent, "templates")
            one_lab = await call(agent, "lab", lab="red")  # no labs file: no lab to name
    assert {tool.name for tool in listed.tools} == TOOLS
    assert one_lab["error"].startswith("`lab` is for a labbot serving many labs (LABBOT_LABS)")
    assert one_lab["total"] == 0 and "lab" not in one_lab["metadata"]
    show = next(tool for tool in listed.tools if tool.name == "show")
    assert show.input_schema["required"] == ["command", "devices"]
    assert "allow-list" in (show.description or "")
    names = {item["name"]: item for item in lab["data"]}
    assert set(ROUTERS) <= set(names) and lab["success"] and lab["metadata"]["links"]
    assert names["R1"]["platform"] == "cisco_ios_telnet" and names["R1"]["kind"] == "router"
    (item,) = brief["data"]
    assert brief["success"] and (brief["total"], brief["successful"]) == (1, 1)
    assert item["id"] == "R1" and "GigabitEthernet0/0" in item["result"]
    (running,) = config["data"]
    assert "snmp-server community ‹secret:" in running["result"]
    assert COMMUNITY not in str(config) and "AgentSecret1" not in str(config)
    ospf = next(item for item in library["data"] if item["id"] == "ospf")
    assert ospf["params"] and ospf["sections"] and len(ospf["sha256"]) == 64


async def test_a_read_outside_the_allow_list_or_the_rate_is_refused_like_in_chat(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    async with slack_lab(tmp_path, slack_api, **AGENT_SETTINGS, max_reads_per_minute=1) as bot:
        async with mcp_endpoint(bot) as url, agent_session(url) as agent:
            copy = await agent.call_tool(
                "show", {"command": "show running-config | redirect flash:x", "devices": ["R1"]}
            )
            reload = await call(agent, "show", command="reload", devices=["R1"])
            unknown = await call(agent, "show", command="show version", devices=["R9"])
            first = await call(agent, "show", command="show version", devices=["R1"])
            again = await call(agent, "show", command="show version", devices=["R1"])
        await bot.mention("show running-config | redirect flash:x on R1", user="U2")
        await bot.adapter.idle()
        agent_id = f"agent:{AGENT}"
        sent = [e for e in await bot.runtime.audit.entries(user=agent_id) if e.kind == "read"]
    chat_refusal = slack_api.ephemerals[-1]["text"]
    assert copy.is_error
    refused = copy.structured_content or {}
    assert refused["total"] == 0 and not refused["success"]
    assert refused["error"].split(":", 1)[1] in chat_refusal  # the same reason as in chat
    assert "is not a read" in reload["error"] and "R9" in unknown["error"]
    assert first["success"] and "LABBOT_MAX_READS_PER_MINUTE" in again["error"]
    assert [(e.device, e.text) for e in sent] == [("R1", "show version")]  # nothing else sent


async def test_agent_asks_two_people_approve_in_slack_and_the_audit_names_them_all(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    async with slack_lab(tmp_path, slack_api, **AGENT_SETTINGS, **TWO_PEOPLE) as bot:
        async with mcp_endpoint(bot) as url, agent_session(url) as agent:
            opened = await call(agent, "request_change", text="configure ospf on all routers")
            change_id = opened["metadata"]["change_id"]
            root = await opened_thread(bot)
            progress: list[tuple[float, float | None, str | None]] = []
            told: list[str] = []

            async def noted(done: float, total: float | None, message: str | None) -> None:
                progress.append((done, total, message))
                told.append(message or "")

            waiting = asyncio.create_task(
                agent.call_tool(
                    "wait_for_change",
                    {"change_id": change_id, "seconds": 120},
                    progress_callback=noted,
                )
            )
            await approve_both_gates(bot, root.ts, lambda: told, PEOPLE)
            waited = (await waiting).structured_content or {}
            status = await call(agent, "change_status", change_id=change_id)
        summary = await bot.runtime.audit.change_summary(change_id)
        audit = bot.runtime.audit
        calls = [entry for entry in await audit.entries(user=PRINCIPAL) if entry.kind == "agent"]
        chain = await audit.verify()
    assert [(call.gate, call.status, call.change_id) for call in calls] == [
        ("request_change", "answered", change_id),
        ("wait_for_change", "answered", change_id),
        ("change_status", "answered", change_id),
    ]
    assert {(call.actor_name, call.channel) for call in calls} == {
        (f"{AGENT} (agent of U1)", "http")
    }
    assert '"text":"configure ospf on all routers"' in calls[0].text and chain.ok
    assert opened["metadata"]["state"] == "open" and opened["metadata"]["step"] == "template"
    assert opened["metadata"]["thread"].endswith(root.ts.replace(".", ""))
    assert f"{AGENT}* asks on behalf of {PRINCIPAL}" in root.text
    assert waited == status and waited["success"] and waited["metadata"]["state"] == "done"
    assert [item["name"] for item in waited["data"]] == list(ROUTERS)
    assert all(item["pushed"] and item["status"] == "success" for item in waited["data"])
    for router in ROUTERS:
        assert "router ospf" in bot.lab.device(router).running_config()
    approvers = waited["metadata"]["approvers"]
    assert approvers == {gate: ["bob (U2)", "carol (U3)"] for gate in ("template", "params")}
    (template,) = waited["metadata"]["templates"]
    assert template["name"] == "ospf" and len(template["sha256"]) == 64
    between = (  # told when a poll finds the change between its steps
        f"{change_id}: the per-device parameters are being prepared",
        f"{change_id}: the approved lines are being pushed",
    )
    assert [m for m in told if m not in between] == [
        f"{change_id} waits at the template gate",
        f"{change_id} waits at the params gate",
    ]
    assert all(total == 120 for _, total, _ in progress)
    assert summary is not None and summary.requester_id == f"agent:{AGENT}"
    assert summary.requester_name == f"{AGENT} (agent of {PRINCIPAL})"


async def test_an_agent_never_decides_nor_does_its_principal(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    async with slack_lab(tmp_path, slack_api, **AGENT_SETTINGS) as bot:
        async with mcp_endpoint(bot) as url, agent_session(url) as agent:
            opened = await call(agent, "request_change", text="configure ospf on all routers")
            root = await opened_thread(bot)
            template = await bot.gate(root.ts, "Approve")
            forged = click(template, "Approve", user=f"agent:{AGENT}", name=AGENT)
            await bot.slack.interaction(forged)  # a decision payload in the agent's name
            change_id = opened["metadata"]["change_id"]  # a message in its name decides by id
            await bot.mention(f"approve {change_id}", user=f"agent:{AGENT}", thread_ts=root.ts)
            await bot.slack.interaction(click(template, "Approve", user=PRINCIPAL, name="alice"))
            await bot.adapter.idle()
            status = await call(agent, "change_status", change_id=change_id)
            other = await call(agent, "change_status", change_id="chg-0badc0de")
        await bot.mention("audit", thread_ts=root.ts)
        audit = await bot.said(root.ts, "Audit:")
    said = [m.text for m in slack_api.thread("C1", root.ts)]
    assert sum("never decides a gate" in text for text in said) == 2  # click and message
    alice = [e["text"] for e in slack_api.ephemerals if e["user"] == PRINCIPAL]
    assert alice and "you requested this change" in alice[0]  # four-eyes: she asked
    assert len(template.buttons) == 3 and status["metadata"]["step"] == "template"
    assert status["metadata"]["approvers"] == {}
    assert other["error"] == f"no change chg-0badc0de was asked by {AGENT}"
    refusals = [line for line in audit.all_text.splitlines() if "never decides" in line]
    assert len(refusals) == 2 and all(AGENT in refusal for refusal in refusals)
    assert f"{AGENT} (agent of {PRINCIPAL})" in audit.all_text  # who asked, for whom


async def test_a_port_taken_is_one_line_naming_the_setting(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        async with slack_lab(tmp_path, slack_api, **AGENT_SETTINGS, mcp_port=port) as bot:
            with pytest.raises(ConfigError) as refused:
                await serve_agents(bot.settings, bot.runtime)
    assert str(refused.value).startswith(f"LABBOT_MCP_PORT: cannot listen on 127.0.0.1:{port}")


@pytest.mark.parametrize("token", ["", "lbt_not-a-token"])
async def test_a_missing_or_wrong_token_gets_one_line(
    tmp_path: Path, slack_api: SlackApiStandIn, token: str
) -> None:
    headers: dict[str, Any] = {"Authorization": f"Bearer {token}"} if token else {}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    async with (
        slack_lab(tmp_path, slack_api, **AGENT_SETTINGS) as bot,
        mcp_endpoint(bot) as url,
        httpx2.AsyncClient() as http,
    ):
        answer = await http.post(url, json=body, headers=headers)
    assert answer.status_code == 401
    assert answer.text.count("\n") == 1 and "bearer token" in answer.text
    assert "LABBOT_MCP_AGENTS" in answer.text


async def test_an_agent_is_held_to_its_open_changes_and_calls_a_minute(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    limits = {"mcp_max_open_per_agent": 1, "mcp_calls_per_minute": 4, "max_request_chars": 100}
    async with slack_lab(tmp_path, slack_api, **AGENT_SETTINGS, **limits) as bot:
        async with mcp_endpoint(bot) as url, agent_session(url) as agent:
            long = await call(agent, "request_change", text="configure ospf " + "x" * 100)
            first = await call(agent, "request_change", text="configure ospf on all routers")
            second = await call(agent, "request_change", text="apply ntp to R1 servers=10.0.0.1")
            third = await call(agent, "templates")
            fourth = await call(agent, "templates")
        calls = [
            e for e in await bot.runtime.audit.entries(user=f"agent:{AGENT}") if e.kind == "agent"
        ]
    assert "LABBOT_MAX_REQUEST_CHARS" in long["error"] and "x" * 100 not in long["error"]
    assert first["metadata"]["state"] == "open"
    assert "LABBOT_MCP_MAX_OPEN_PER_AGENT" in second["error"] and second["total"] == 0
    roots = [m for m in slack_api.messages.values() if m.thread_ts is None]
    assert len(roots) == 2  # the request too long opened no thread
    assert third["success"] and third["total"] > 0
    assert fourth["error"].startswith(f"{AGENT} made 4 calls in the last minute (at most 4")
    answered = [call.status.startswith("answered") for call in calls]
    assert answered == [False, True, False, True, False]
    assert '"chars":' in calls[0].text and "x" * 100 not in calls[0].text  # its trace only


async def test_a_scripted_agent_asks_for_a_change_end_to_end(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    """The model (the OpenAI stand-in) reads the lab, asks for OSPF, waits with the change id
    it read in request_change's answer; bob approves both gates meanwhile; it says it is done."""
    with OpenAIStandIn() as model:
        model.script(
            tool_call("lab", {}),
            tool_call("request_change", {"text": "configure ospf on all routers"}),
            tool_call(
                "wait_for_change",
                lambda body: {
                    "change_id": last_tool_answer(body)["metadata"]["change_id"],
                    "seconds": 120,
                },
            ),
            text("OSPF is configured on R1, R2 and R3; bob approved it."),
        )
        async with (
            slack_lab(tmp_path, slack_api, **AGENT_SETTINGS) as bot,
            mcp_endpoint(bot) as url,
            agent_session(url) as session,
        ):
            task = "Bring up OSPF in the lab."
            working = asyncio.create_task(run_agent(session, model.base_url, task))
            root = await opened_thread(bot)
            await approve_both_gates(bot, root.ts, lambda: ["the template gate", "the params gate"])
            said = await working
    offered = {tool["function"]["name"] for tool in model.requests[0].body["tools"]}
    ended = last_tool_answer(model.requests[-1].body)
    assert offered == TOOLS and said.startswith("OSPF is configured")
    assert ended["metadata"]["state"] == "done" and ended["successful"] == 3
    assert f"{AGENT}* asks on behalf of {PRINCIPAL}" in root.text
    for router in ROUTERS:
        assert "router ospf" in bot.lab.device(router).running_config()
