"""Secrets of every kind planted on an IOS router and an EOS switch never leave labbot in clear:
through a real `labbot serve --http` process (signed Slack events and clicks from the Slack Web
API stand-in, the OpenAI-compatible stand-in as its LLM, the simulated lab, SQLite), a team
reads the configurations, asks the LLM a question, makes a change whose preview and diff sit
among the secrets, and reads the audit in chat and on the command line. Every byte sent to the
Slack stand-in and to the LLM stand-in, every line the bot logged and every CLI output is
searched for every planted value: none is found, and the change still pushed the real value."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import pytest

from base.masking import SecretMask
from labsim import Lab, demo_topology
from labsim.cli import CliSession
from tests.adapters.slack.payloads import click
from tests.fakes.openai_server import OpenAIStandIn, structured, text
from tests.fakes.slack_api import SlackApiStandIn
from tests.scale.deployment import Deployment, deployment
from tests.scale.harness import AUDIT_KEY, LABBOT, PEOPLE
from tests.security.tally import attempt

IOS = {  # R1: a line of each kind, and the value it keeps
    "enable secret 5 $1$Ios$EnableSecret1": "$1$Ios$EnableSecret1",
    "username admin privilege 15 secret 9 $9$IosUserSecret9": "$9$IosUserSecret9",
    "username bob password 0 Ios-User-Pw-0": "Ios-User-Pw-0",
    "snmp-server community Ios-Comm-RO RO": "Ios-Comm-RO",
    "snmp-server host 10.0.0.9 version 2c Ios-Trap-Comm": "Ios-Trap-Comm",
    "snmp-server user v3u v3g v3 auth sha Ios-V3-Auth priv aes 128 Ios-V3-Priv": "Ios-V3-Auth",
    "crypto isakmp key Ios-Isakmp-Key address 10.0.0.2": "Ios-Isakmp-Key",
    "ntp authentication-key 1 md5 Ios-Ntp-Key 7": "Ios-Ntp-Key",
    "tacacs-server host 10.0.0.5 key 7 Ios-Tacacs-7": "Ios-Tacacs-7",
    "interface GigabitEthernet0/0": "",
    " ip ospf authentication-key Ios-Ospf-Key": "Ios-Ospf-Key",
    " ip ospf message-digest-key 1 md5 Ios-Md5-Key": "Ios-Md5-Key",
    "router bgp 65001": "",
    " neighbor 10.0.12.2 password Ios-Bgp-Pw": "Ios-Bgp-Pw",
}
EOS = {  # SW1
    "username admin privilege 15 role network-admin secret sha512 $6$EosSalt$EosUser512": (
        "$6$EosSalt$EosUser512"
    ),
    "enable password sha512 $6$EosEn$EosEnable512": "$6$EosEn$EosEnable512",
    "snmp-server community Eos-Comm-RO ro": "Eos-Comm-RO",
    "snmp-server host 10.0.0.9 version 2c Eos-Trap-Comm": "Eos-Trap-Comm",
    "snmp-server user v3e v3g v3 auth sha Eos-V3-Auth priv aes Eos-V3-Priv": "Eos-V3-Auth",
    "ntp authentication-key 1 md5 7 Eos-Ntp-Key7": "Eos-Ntp-Key7",
    "tacacs-server host 10.0.0.5 key 7 Eos-Tacacs-Key": "Eos-Tacacs-Key",
    "router bgp 65100": "",
    "   neighbor 10.0.100.1 password 7 Eos-Bgp-Pw": "Eos-Bgp-Pw",
}
NEW_COMMUNITY = "New-Comm-Zz9"  # typed in a change request: the LLM must never see it either
PLANTED = [v for v in (*IOS.values(), *EOS.values()) if v] + [
    "Ios-V3-Priv",
    "Eos-V3-Priv",
    NEW_COMMUNITY,
]
MASK = SecretMask.derived_from(AUDIT_KEY.encode())  # as the replicas mask, sharing the key


@pytest.fixture
async def slack_api() -> AsyncIterator[SlackApiStandIn]:
    async with SlackApiStandIn(users=dict(PEOPLE) | {"U4": "dave"}) as api:
        yield api


def plant(lab: Lab) -> None:
    """Each device's secrets, configured at its console before the bot starts."""
    for name, lines in (("R1", IOS), ("SW1", EOS)):
        console = CliSession(lab.device(name), privileged=True, secret="")
        for line in ["configure terminal", *lines, "end"]:
            console.feed_line(line)


def serving(
    tmp_path: Path, api: SlackApiStandIn, llm: OpenAIStandIn
) -> AbstractAsyncContextManager[Deployment]:
    database = f"sqlite+aiosqlite:///{tmp_path / 'labbot.db'}"
    settings = {
        "OPENAI_API_KEY": "sk-standin-secrets",
        "OPENAI_BASE_URL": llm.base_url,
        "LABBOT_LLM_MODEL": llm.model,
        "LABBOT_PLAN_ATTEMPTS": "1",
    }
    return deployment(tmp_path, database, api, demo_topology(2), count=1, **settings)


QUESTION_SCRIPT = (
    structured({"device": "R1", "command": "show running-config"}),
    structured({"device": "SW1", "command": "show running-config"}),
    # a model that quotes what it learnt: the bot masks the answer before posting it
    text("R1's enable secret is $1$Ios$EnableSecret1; SW1 answers community Eos-Comm-RO."),
)


def change_template() -> dict[str, object]:
    """The LLM's template for the change: it saw the typed community as its token only, and
    uses the token as the default; labbot gives the real value back to the change."""
    return {
        "name": "snmp_ro",
        "description": "a read-only SNMP community",
        "templates": {"cisco_ios": "snmp-server community {{ community }} RO\n"},
        "params_schema": {"community": f"str={MASK.token(NEW_COMMUNITY)}"},
        "example_params": {},
        "targets": ["R1"],
        "sections": ["snmp-server community *"],
    }


async def converse(lab: Deployment, llm: OpenAIStandIn) -> None:
    """Reads, a question, a change through both gates, the audit and its report in chat."""
    slack = lab.slack
    for read in (
        "show running-config on R1,SW1",
        "show running-config | include community on R1,SW1",
        "show running-config | include secret on R1,SW1",
        "show running-config | include key on R1,SW1",
    ):
        thread = await slack.mention(read, user="U1")
        await slack.said(thread, "✓ SW1")
    llm.script(*QUESTION_SCRIPT)
    asked = await slack.mention("why does SW1 refuse community Eos-Comm-RO from R1?", user="U1")
    await slack.said(asked, "Reads I used")
    llm.script(structured(change_template()))
    thread = await slack.mention(f"configure snmp community {NEW_COMMUNITY} RO on R1", user="U1")
    template = await slack.gate(thread, "Approve")
    await slack.senders[0].interaction(click(template, "Approve", user="U2", name="bob"))
    preview = await slack.gate(thread, "Execute")
    await slack.senders[0].interaction(click(preview, "Execute", user="U3", name="carol"))
    await slack.said(thread, "pushed: ✓ 1")
    for command in ("status", "audit", "audit report"):
        await slack.mention(command, user="U4", thread=thread)
    await slack.api.wait_for(
        lambda: slack.api.uploads and all("data" in upload for upload in slack.api.uploads.values())
    )


async def cli(lab: Deployment, *args: str) -> str:
    """A `labbot` command on the deployment's settings; what it printed."""
    process = await asyncio.create_subprocess_exec(
        str(LABBOT),
        *args,
        cwd=lab.workdir,
        env=lab.env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await process.communicate()
    assert process.returncode == 0, out.decode()
    return out.decode()


def sent_to_slack(api: SlackApiStandIn) -> str:
    """Every Web API call's arguments, every uploaded file, every response_url post."""
    calls = [json.dumps(call.args, ensure_ascii=False) for call in api.calls]
    files = [upload.get("content", "") for upload in api.uploads.values()]
    return "\n".join(calls + files + [json.dumps(r, ensure_ascii=False) for r in api.responses])


def sent_to_llm(llm: OpenAIStandIn) -> str:
    return "\n".join(json.dumps(r.body, ensure_ascii=False) for r in llm.requests)


async def test_no_planted_secret_reaches_chat_the_llm_the_logs_or_the_cli(
    tmp_path: Path, slack_api: SlackApiStandIn, llm: OpenAIStandIn
) -> None:
    async with serving(tmp_path, slack_api, llm) as lab:
        plant(lab.lab)
        await converse(lab, llm)
        printed = [
            await cli(lab, "audit"),
            await cli(lab, "audit", "--format", "json"),
            await cli(lab, "audit", "report", "-o", str(tmp_path / "report.html")),
            await cli(lab, "pending", "--user", "U2"),
        ]
        pushed = lab.lab.device("R1").running_config()
        logged = "\n".join(line for replica in lab.replicas for line in replica.log)
    report = (tmp_path / "report.html").read_text(encoding="utf-8")
    seen = {
        "Slack": sent_to_slack(slack_api),
        "LLM": sent_to_llm(llm),
        "log": logged,
        "CLI": "\n".join(printed) + report,
    }
    leaks = {where: [v for v in PLANTED if v in said] for where, said in seen.items()}
    for where, found in leaks.items():
        attempt(f"secrets: a planted value sent to the {where}", not found)
    assert leaks == {where: [] for where in seen}, leaks
    # shown masked, not dropped: the same token in chat and in the report
    for value in ("Ios-Ntp-Key", "Eos-Comm-RO", "Ios-Trap-Comm", "$6$EosSalt$EosUser512"):
        assert MASK.token(value) in seen["Slack"], value
    assert f"snmp-server community {MASK.token(NEW_COMMUNITY)} RO" in seen["Slack"]
    assert "ntp authentication-key 1 md5 ‹secret:" in seen["Slack"]  # the key, not `md5`
    assert MASK.token("$1$Ios$EnableSecret1") in seen["Slack"]  # the model's answer, masked
    assert MASK.token(NEW_COMMUNITY) in report
    # the LLM read the configurations (masked) and the request (masked), the push went on
    assert "snmp-server community ‹secret:" in seen["LLM"]
    assert f"community {MASK.token('Eos-Comm-RO')} from R1" in seen["LLM"]
    assert f"snmp-server community {NEW_COMMUNITY} RO" in pushed
