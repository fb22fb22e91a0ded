"""What an AI agent is given is masked as chat is: the team's saved template keeps an SNMP
community as its default, the agent lists the library and asks for that template on R1, two
people approve in the Slack stand-in, and no tool answer (the library, the change's status and
push output) holds the community: the agent and the LLM behind it see its token only."""

from __future__ import annotations

import asyncio
from pathlib import Path

from storage.template_store import TemplateDraft
from tests.adapters.mcp.agent_stack import (
    AGENT_SETTINGS,
    agent_session,
    approve_both_gates,
    call,
    mcp_endpoint,
    opened_thread,
)
from tests.adapters.slack.stack import slack_lab
from tests.fakes.slack_api import SlackApiStandIn
from tests.security.tally import attempt

COMMUNITY = "Team-Comm-9"  # the saved template's default: the team's, not the agent's
SNMP = TemplateDraft(
    name="team_snmp",
    description="The team's read-only SNMP community",
    templates={"cisco_ios": "snmp-server community {{ community }} RO\n"},
    params_schema={"community": {"type": "str", "default": COMMUNITY}},
    example_params={},
    saved_by_id="U2",
    saved_by_name="bob",
    sections=("snmp-server community *",),
)


async def test_an_agent_never_gets_a_saved_template_s_secret_in_clear(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    async with slack_lab(tmp_path, slack_api, **AGENT_SETTINGS) as bot:
        assert bot.runtime.templates is not None
        await bot.runtime.templates.save(SNMP)
        told: list[str] = []

        async def noted(done: float, total: float | None, message: str | None) -> None:
            told.append(message or "")

        async with mcp_endpoint(bot) as url, agent_session(url) as agent:
            library = await call(agent, "templates")
            opened = await call(
                agent, "request_change", text="", devices=["R1"], template="team_snmp"
            )
            change_id = opened["metadata"]["change_id"]
            waiting = asyncio.create_task(
                agent.call_tool(
                    "wait_for_change",
                    {"change_id": change_id, "seconds": 120},
                    progress_callback=noted,
                )
            )
            await approve_both_gates(bot, (await opened_thread(bot)).ts, lambda: told)
            waited = (await waiting).structured_content or {}
        pushed = bot.lab.device("R1").running_config()
    token = bot.runtime.service.reporter.mask.token(COMMUNITY)
    saved = next(item for item in library["data"] if item["name"] == "team_snmp")
    assert saved["params"]["community"]["default"] == token
    assert waited["metadata"]["state"] == "done" and f"community {COMMUNITY} RO" in pushed
    answers = {"templates": str(library), "wait_for_change": str(waited)}
    leaks = [tool for tool, said in answers.items() if COMMUNITY in said]
    attempt("secrets: a saved template's secret in an agent's tool answer", not leaks)
    assert leaks == [], answers
