"""The safety-side replays through a real `labbot serve --http` process: signed Slack events and
clicks from the local Slack Web API stand-in, the simulated lab, SQLite, and (for hostile
templates) the OpenAI-compatible stand-in. Unknown targets, forged and replayed clicks, hostile
lines from an LLM, lines outside a template's sections, a request over LABBOT_MAX_TARGETS, a
template bomb from the LLM, a secret value in a rendered line, and a request carrying fake
decision lines: each refused (or harmless), and nothing reaches a device that the thread did not
show."""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from base.masking import SecretMask
from labsim import Lab, demo_topology
from tests.adapters.slack.payloads import click
from tests.fakes.openai_server import OpenAIStandIn, structured
from tests.fakes.slack_api import Posted, SlackApiStandIn
from tests.scale.deployment import deployment
from tests.scale.harness import AUDIT_KEY
from tests.security.hostile_lines import HOSTILE
from tests.security.tally import attempt
from tests.security.test_audit_anchor import FORGED
from tests.security.test_limits import BOMB_PROPOSAL, OK_TEMPLATE
from tests.security.test_targets import SPELLINGS
from workflow.safety.sections import line_paths

PEOPLE = {"U1": "alice", "U2": "bob", "U3": "carol", "U4": "dave"}
NTP = "apply ntp to R1,R2 servers=10.7.7.7"
SHORT_SECRET = "c1sc0"  # a short credential setting: hidden wherever it stands as a word
ON_LAB = {"cisco_ios": "R1", "arista_eos": "SW1"}  # the families the simulated lab runs


@pytest.fixture
async def slack_api() -> AsyncIterator[SlackApiStandIn]:
    async with SlackApiStandIn(users=dict(PEOPLE)) as api:
        yield api


def serving(tmp_path: Path, api: SlackApiStandIn, **settings: str) -> Any:
    database = f"sqlite+aiosqlite:///{tmp_path / 'labbot.db'}"
    return deployment(tmp_path, database, api, demo_topology(3), count=1, **settings)


def configs(lab: Lab) -> dict[str, str]:
    return {device.name: device.running_config() for device in lab.devices}


def reads(lab: Lab) -> dict[str, int]:
    return {device.name: len(device.commands_seen) for device in lab.devices}


async def ephemeral(api: SlackApiStandIn, user: str, count: int) -> str:
    """The `count`-th private note the bot sent `user` (waiting for it)."""
    notes = await api.wait_for(
        lambda: (n := [e for e in api.ephemerals if e["user"] == user]) and len(n) >= count and n
    )
    return str(notes[count - 1]["text"])


def forged(message: Posted, label: str, user: str, *, interrupt: str = "", sha: str = "") -> Any:
    """A click on `message` whose button value names another interrupt or content hash."""
    payload = click(message, label, user=user, name=PEOPLE[user])
    action = payload["actions"][0]
    real_interrupt, _, real_sha = action["value"].partition("|")
    action["value"] = f"{interrupt or real_interrupt}|{sha or real_sha}"
    return payload


async def test_unknown_targets_over_slack_are_refused_and_nothing_is_read(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    async with serving(tmp_path, slack_api, GNS3_PASSWORD=SHORT_SECRET) as lab:
        before, seen = configs(lab.lab), reads(lab.lab)
        shown: set[str] = set()  # devices a narrowed request named (and so read)
        for text in SPELLINGS:
            thread = await lab.slack.mention(text)
            said = await lab.slack.wait_message(
                thread, lambda m: "which devices?" in m.all_text or bool(m.buttons)
            )
            # Slack text arrives with line breaks and tabs as spaces: `R1\nreload` is then
            # `R1 reload`, narrowed to R1 and shown as such (harmless); the rest is refused
            chosen = {n for n in ("R1", "R2", "R3", "SW1") if f"{n} (named)" in said.all_text}
            named = set(re.findall(r"\b(R\d|SW1)\b", text))
            refused = not said.buttons and "R1, R2, R3, SW1" in said.all_text
            narrowed = bool(said.buttons) and bool(chosen) and chosen <= named
            how = "refused" if refused else "narrowed to the named, shown at the gate"
            attempt(f"over Slack: unknown or unparsable targets ({how})", refused or narrowed)
            assert refused or narrowed, said.all_text
            shown |= chosen if narrowed else set()
        now = reads(lab.lab)
        unread = [name for name in now if now[name] == seen[name]]
        unchanged = configs(lab.lab) == before
        echoed = await lab.slack.mention(f"apply ntp to R3 servers=10.7.7.7 {SHORT_SECRET}")
        await lab.slack.wait_message(echoed, lambda m: "‹GNS3_PASSWORD›" in m.all_text)
        async with lab.audit() as audit:
            rows = await audit.entries()
        posted = [m.all_text for m in slack_api.messages.values()]
    assert unchanged and set(unread) == set(seen) - shown  # only a named target was read
    leaked = [t for t in posted + [repr(r) for r in rows] if SHORT_SECRET in t]
    attempt("over Slack: a short credential echoed", not leaked)
    assert not leaked, leaked


async def test_forged_and_replayed_clicks_over_slack_change_nothing(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    async with serving(tmp_path, slack_api) as lab:
        sender = lab.slack.senders[0]
        thread = await lab.slack.mention(NTP, user="U1")
        template = await lab.slack.gate(thread, "Approve")
        approve = click(template, "Approve", user="U2", name="bob")
        late = {user: click(template, "Approve", user=user, name=PEOPLE[user]) for user in PEOPLE}
        made_up = [
            (forged(template, "Approve", "U3", interrupt="f" * 32), "stale"),
            (forged(template, "Approve", "U3", sha="0" * 64), "differs from what is pending"),
        ]
        for count, (payload, words) in enumerate(made_up, start=1):
            status, _ = await sender.interaction(payload)
            note = await ephemeral(slack_api, "U3", count)
            attempt("over Slack: forged click", status == 200 and words in note)
            assert words in note, note
        stale_stamp = int(time.time()) - 600  # a captured click sent again ten minutes later
        status, _ = await sender.interaction(approve, timestamp=stale_stamp)
        attempt("over Slack: replayed click (old signature)", status == 401)
        assert status == 401
        assert (await sender.interaction(approve))[0] == 200  # bob's real click
        preview = await lab.slack.gate(thread, "Execute")
        await sender.interaction(approve)  # the very same delivery again: dropped
        repeated = await slack_api.wait_for(
            lambda: any("repeated Slack delivery" in line for line in lab.replicas[0].log)
        )
        attempt("over Slack: replayed click (same delivery)", repeated)
        for user, count in (("U2", 1), ("U3", 3)):  # pressed again later, and carol's copy
            await sender.interaction(late[user])  # prepared before: the buttons go away
            note = await ephemeral(slack_api, user, count)
            attempt("over Slack: replayed click", "already approved by bob" in note)
            assert "already approved by bob" in note, note
        gates = [m for m in lab.slack.thread(thread) if "Step 2 of 2" in m.all_text]
        untouched = not any("ntp server 10.7.7.7" in c for c in configs(lab.lab).values())
        await sender.interaction(click(preview, "Execute", user="U3", name="carol"))
        await lab.slack.said(thread, "pushed: ✓ 2")
        after = configs(lab.lab)
    assert len(gates) == 1 and untouched  # one params gate; nothing pushed before Execute
    assert "ntp server 10.7.7.7" in preview.all_text  # what was pushed is what was shown
    assert ["ntp server 10.7.7.7" in after[name] for name in ("R1", "R2", "R3", "SW1")] == [
        True,
        True,
        False,
        False,
    ]


def answered_by(llm: OpenAIStandIn, **settings: str) -> dict[str, str]:
    """The settings of a bot whose templates come from the OpenAI-compatible stand-in."""
    return {
        "OPENAI_API_KEY": "sk-standin-http-replays",
        "OPENAI_BASE_URL": llm.base_url,
        "LABBOT_LLM_MODEL": llm.model,
        "LABBOT_PLAN_ATTEMPTS": "1",
        **settings,
    }


def llm_template(family: str, lines: list[str], sections: list[str] | None) -> dict[str, Any]:
    """What a prompt-injected LLM answers: a template rendering exactly `lines`."""
    template: dict[str, Any] = {
        "name": "tweak",
        "description": "a small change",
        "templates": {family: "\n".join(lines) + "\n"},
        "params_schema": {},
        "example_params": {},
        "targets": [ON_LAB[family]],
    }
    if sections is not None:
        template["sections"] = sections
    return template


HOSTILE_ON_LAB = [(k, f, lines) for k, f, lines in HOSTILE if f in ON_LAB]


def admitting(lines: list[str]) -> list[str]:
    """Sections that admit exactly these lines where they stand, so the deny-list (not where a
    line lands) is what must refuse them."""
    return [
        " / ".join(re.sub(r"([*?[])", r"[\1]", level) for level in path)
        for path in line_paths(lines)
    ]


NULL_ROUTE = "ip route 0.0.0.0 0.0.0.0 Null0"
OUTSIDE: list[tuple[str, list[str], list[str] | None]] = [  # what, lines, sections declared
    (
        "a line outside its sections",
        ["router ospf 1", "ip route 0.0.0.0 0.0.0.0 Null0"],
        ["router ospf *"],
    ),
    ("no sections declared", ["router ospf 1"], None),
]


async def test_hostile_and_outside_lines_from_an_llm_over_slack_are_never_shown_or_pushed(
    tmp_path: Path, slack_api: SlackApiStandIn, llm: OpenAIStandIn
) -> None:
    settings = answered_by(llm)
    cases: list[tuple[str, str, list[str], list[str] | None]] = [
        (f"deny-list: {kind}", family, lines, admitting(lines))
        for kind, family, lines in HOSTILE_ON_LAB
    ]
    cases += [(f"sections: {what}", "cisco_ios", lines, s) for what, lines, s in OUTSIDE]
    async with serving(tmp_path, slack_api, **settings) as lab:
        before = configs(lab.lab)
        for kind, family, lines, sections in cases:
            llm.script(structured(llm_template(family, lines, sections)))
            thread = await lab.slack.mention(f"change something on {ON_LAB[family]}", user="U1")
            ended = await lab.slack.wait_message(
                thread, lambda m: "blocked" in m.all_text or "failed" in m.all_text
            )
            shown = [m for m in lab.slack.thread(thread) if m.buttons]
            why = "sections" if kind.startswith("sections") else "blocked"  # the reason, named
            refused = not shown and configs(lab.lab) == before and why in ended.all_text
            attempt(f"over Slack: {kind}", refused)
            assert refused, (kind, lines, ended.all_text)
    assert len(cases) == len(HOSTILE_ON_LAB) + len(OUTSIDE)


async def test_more_than_max_targets_over_slack_wait_for_an_owner_to_confirm(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    owners = tmp_path / "owners"
    owners.write_text("R*  U1 U3\nSW*  U4\n")  # the requester owns them too
    settings = {"LABBOT_OWNERS": str(owners), "LABBOT_MAX_TARGETS": "2"}
    async with serving(tmp_path, slack_api, **settings) as lab:
        sender = lab.slack.senders[0]
        seen = reads(lab.lab)
        thread = await lab.slack.mention("apply ntp to R* servers=10.7.7.9", user="U1")
        confirm = await lab.slack.gate(thread, "Confirm")
        for user, words in (("U1", "four-eyes"), ("U2", "you own none"), ("U4", "you own none")):
            await sender.interaction(click(confirm, "Confirm", user=user, name=PEOPLE[user]))
            note = await ephemeral(slack_api, user, 1)
            attempt("over Slack: targets confirmed by the wrong person", words in note)
            assert words in note, (user, note)
        unread = reads(lab.lab) == seen
        await sender.interaction(click(confirm, "Confirm", user="U3", name="carol"))
        template = await lab.slack.gate(thread, "Approve")
        async with lab.audit() as audit:
            rows = await audit.entries()
    assert "selects *3* devices" in confirm.all_text and "R3 (matches R*)" in confirm.all_text
    assert unread  # nothing read from the devices before the confirmation
    assert "Step 1 of 2" in template.all_text and "R3 (matches R*)" in template.all_text
    confirmed = [r for r in rows if r.gate == "targets" and r.kind == "resolved"]
    refused = {r.actor_name for r in rows if r.gate == "targets" and r.kind == "refusal"}
    assert [r.actor_name for r in confirmed] == ["carol"] and confirmed[0].sha256
    assert refused == {"alice", "bob", "dave"}


async def test_a_bomb_from_the_llm_over_slack_ends_in_one_line_while_a_click_is_answered(
    tmp_path: Path, slack_api: SlackApiStandIn, llm: OpenAIStandIn
) -> None:
    llm.script(structured(OK_TEMPLATE), structured(BOMB_PROPOSAL))
    settings = answered_by(llm, LABBOT_RENDER_CPU_SECONDS="2", LABBOT_RENDER_MEMORY_MB="256")
    async with serving(tmp_path, slack_api, **settings) as lab:
        before = configs(lab.lab)
        waiting = await lab.slack.mention("ntp on R1", user="U1")
        gate = await lab.slack.gate(waiting, "Cancel")
        bombing = await lab.slack.mention("x on R1", user="U4")
        await slack_api.wait_for(lambda: len(llm.requests) == 2)  # the bomb is rendering now
        started = time.monotonic()
        await lab.slack.senders[0].interaction(click(gate, "Cancel", user="U2", name="bob"))
        await lab.slack.said(waiting, "cancelled")
        served_in = time.monotonic() - started
        during = not any("LABBOT_RENDER" in m.all_text for m in lab.slack.thread(bombing))
        ended = await lab.slack.said(bombing, "LABBOT_RENDER")
        shown = [m for m in lab.slack.thread(bombing) if m.buttons]
        unchanged = configs(lab.lab) == before
    # one line naming the cap (the fallback text and its block say the same)
    one_line = {line for line in ended.all_text.splitlines() if "LABBOT_RENDER" in line}
    refused = not shown and unchanged and len(one_line) == 1 and "Traceback" not in ended.all_text
    attempt("over Slack: template bombs", refused and during and served_in < 1.5)
    assert during and served_in < 1.5, served_in  # answered while the bomb was rendering
    assert refused, ended.all_text


async def test_a_secret_over_slack_is_shown_masked_with_the_words_around_it(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    community = "Lab-Comm-7741"
    async with serving(tmp_path, slack_api) as lab:
        sender = lab.slack.senders[0]
        request = f"apply snmp to R1 community={community}"
        thread = await lab.slack.mention(request, user="U1")
        template = await lab.slack.gate(thread, "Approve")
        await sender.interaction(click(template, "Approve", user="U2", name="bob"))
        preview = await lab.slack.gate(thread, "Execute")
        await sender.interaction(click(preview, "Execute", user="U3", name="carol"))
        await lab.slack.said(thread, "pushed: ✓ 1")
        # the bot quotes the request back as typed (the person's own words, already in the
        # channel); every line it renders, previews, pushes or audits is checked
        posted = [m.all_text.replace(f"“{request}”", "") for m in slack_api.messages.values()]
        notes = [str(e["text"]) for e in slack_api.ephemerals]
        pushed = lab.lab.device("R1").running_config()
    masked = SecretMask.derived_from(AUDIT_KEY.encode()).token(community)  # the replicas' key
    exact = f"snmp-server community {masked} RO" in preview.all_text
    leaked = [t for t in posted + notes if community in t]
    attempt("over Slack: masking keeps the words around a secret", exact)
    attempt("over Slack: a secret value shown in clear", not leaked)
    assert exact, preview.all_text
    assert not leaked, leaked
    assert f"snmp-server community {community} RO" in pushed  # the shown line, real value


async def test_a_request_over_slack_cannot_print_fake_decision_lines_in_the_audit(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    async with serving(tmp_path, slack_api) as lab:
        before = configs(lab.lab)
        thread = await lab.slack.mention(FORGED, user="U4")
        await lab.slack.wait_message(thread, lambda m: "failed" in m.all_text or bool(m.buttons))
        async with lab.audit() as audit:
            forged = await audit.latest_change_for_thread(f"slack:C1:{thread}")
        assert forged is not None
        await lab.slack.mention(f"audit change={forged.change_id}", user="U3", thread=thread)
        who = await lab.slack.said(thread, "Who confirmed it")
        unchanged = configs(lab.lab) == before
    lines = who.all_text.splitlines()
    faked = [line for line in lines if line.lstrip().startswith(("params gate:", "push R1:"))]
    attempt("over Slack: fake lines in 'who confirmed it'", not faked and unchanged)
    assert not faked, who.all_text
    assert unchanged
    assert any('request: "apply ospf to R1' in line for line in lines), who.all_text
