"""`labbot policy check USER DEVICE…` explains who may approve what, and why."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.cli.policy_check import explain
from bot.policy.rules import Person, Place, Policy, parse_owners
from tests.bot.test_cli import labbot
from tests.fakes.slack_api import BOT_TOKEN, SlackApiStandIn

OWNERS = "*  U0LEAD\nR*  @netops U0ALICE\nSW*  power>=50\n"


def test_each_device_says_who_owns_it_and_whether_this_person_does() -> None:
    policy = Policy(owners=parse_owners(OWNERS + "R9  U0LEAD\n")[1:], push_approvals=2)
    lines = explain(
        policy, Person("U0BOB", frozenset({"@netops"})), ["R1", "SW1", "X1"], Place("C1")
    )
    assert lines[0].startswith("Rules: owners file (3 rule(s))") and "push 2" in lines[0]
    assert lines[1] == "U0BOB (@netops) in C1:"
    assert "  R1: may approve — an owner by `R* @netops U0ALICE`" in lines
    assert "  SW1: may NOT approve — owners by `SW* power>=50`" in lines
    assert "  X1: nobody may approve — no line of LABBOT_OWNERS matches it" in lines
    assert lines[-1].endswith("someone else must approve them (four-eyes)")


def test_places_without_a_rule_are_explained() -> None:
    open_lab = explain(Policy(), Person("U1"), [], Place("D1", direct=True))
    assert "nobody may decide here — direct messages need an explicit rule" in open_lab[2]
    listed = explain(Policy(approvers=("U2",)), Person("U1"), [], Place("C1"))
    assert "may NOT decide here (listed: U2)" in listed[2]
    asking = explain(Policy(requesters=("U2",)), Person("U1"), [], Place("C1"))
    assert "  requests: may NOT start changes (LABBOT_REQUESTERS)" in asking


async def test_the_command_asks_slack_for_the_users_groups(tmp_path: Path) -> None:
    owners = tmp_path / "owners"
    owners.write_text(OWNERS)
    async with SlackApiStandIn(users={"U7": "gina"}, usergroups={"netops": ["U7"]}) as api:
        env = {
            "LABBOT_OWNERS": str(owners),
            "SLACK_BOT_TOKEN": BOT_TOKEN,
            "SLACK_API_URL": api.base_url,
        }
        done = await asyncio.to_thread(
            labbot, "policy", "check", "U7", "R1", "SW1", "--channel", "C1", cwd=tmp_path, env=env
        )
    assert done.returncode == 0, done.stderr
    assert "U7 (@netops) in C1:" in done.stdout
    assert "  R1: may approve" in done.stdout and "SW1: may NOT approve" in done.stdout
    bad = labbot("policy", "check", "U7", "R1", cwd=tmp_path, env={"LABBOT_OWNERS": "/nope"})
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "LABBOT_OWNERS" in bad.stderr
