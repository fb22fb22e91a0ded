"""Through a real `labbot serve --http` process: Slack's signed requests from the local Slack
stand-in, the simulated lab, SQLite. Malformed bodies, approval attempts, the door and what
people see in Slack: each attempt refused (or harmless), nothing pushed that was not shown."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from bot.audit.table import entry_summary
from labsim import demo_topology
from tests.adapters.slack.payloads import click, fixture, mention, submission
from tests.fakes.slack_api import SIGNING_SECRET, Posted, SlackApiStandIn
from tests.scale.deployment import Deployment, deployment
from tests.security.tally import attempt
from tests.support.masks import MASK

PEOPLE = {"U1": "alice", "U2": "bob", "U3": "carol", "U4": "dave"}
NTP = "apply ntp to R1,R2 servers=10.7.7.7"


@pytest.fixture
async def slack_api() -> AsyncIterator[SlackApiStandIn]:
    async with SlackApiStandIn(users=dict(PEOPLE), usergroups={"netops": ["U4"]}) as api:
        yield api


def serving(tmp_path: Path, api: SlackApiStandIn, **settings: str) -> object:
    database = f"sqlite+aiosqlite:///{tmp_path / 'labbot.db'}"
    return deployment(tmp_path, database, api, demo_topology(3), count=1, **settings)


async def signed_post(url: str, raw: bytes, content_type: str, secret: str = SIGNING_SECRET) -> int:
    """POST raw bytes signed as Slack signs them (v0 HMAC-SHA256 of `v0:TS:BODY`)."""
    stamp = str(int(time.time()))
    digest = hmac.new(secret.encode(), f"v0:{stamp}:".encode() + raw, hashlib.sha256)
    headers = {
        "Content-Type": content_type,
        "X-Slack-Request-Timestamp": stamp,
        "X-Slack-Signature": "v0=" + digest.hexdigest(),
    }
    async with (
        aiohttp.ClientSession() as session,
        session.post(url, data=raw, headers=headers) as response,
    ):
        return response.status


FORM = "application/x-www-form-urlencoded"
MALFORMED = [
    (b"{not json", "application/json"),
    (b"[1, 2, 3]", "application/json"),
    (b'"a string"', "application/json"),
    (b"\xff\xfe\x00 not utf-8", "application/json"),
    (b"payload=%7Bnot-json", FORM),
    (b"payload=%5B%5D", FORM),  # a JSON array as the payload
    (b"payload=", FORM),
    (b'{"type": "event_callback", "event": "not an object"}', "application/json"),
    (b'{"type": "block_actions", "actions": "x", "user": 1}', "application/json"),
    (b'{"type": "view_submission", "view": []}', "application/json"),
    (b'{"type": "block_actions", "actions": [1], "user": {"id": "U2"}}', "application/json"),
    (b'{"type": "event_callback", "event": {"type": 7}}', "application/json"),
    (b'{"type": "block_actions", "user": {"id": ["U2"]}}', "application/json"),
    (b'{"type": "event_callback", "authorizations": ["x"], "event": {}}', "application/json"),
    (b'{"type": ["event_callback"]}', "application/json"),
    (b"command=%2Flabbot&user_id=U1&channel_id=C1&text=x&payload", FORM),  # payload, empty
]


def pushed(lab: Deployment, value: str = "10.7.7.7") -> dict[str, bool]:
    return {d.name: f"ntp server {value}" in d.running_config() for d in lab.lab.devices}


async def test_signature_first_then_malformed_bodies_answered_400_in_one_log_line(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    async with serving(tmp_path, slack_api) as lab:  # type: ignore[attr-defined]
        url = lab.replicas[0].events_url
        unsigned = [await signed_post(url, raw, kind, "forged") for raw, kind in MALFORMED]
        signed = [await signed_post(url, raw, kind) for raw, kind in MALFORMED]
        healthy = await lab.slack.mention(NTP)  # still serving
        await lab.slack.gate(healthy, "Approve")
        log = list(lab.replicas[0].log)
    for status in unsigned:
        attempt("slack http: forged signature", status == 401)
    for status in signed:
        attempt("slack http: malformed body", status == 400)
    assert unsigned == [401] * len(MALFORMED)
    assert signed == [400] * len(MALFORMED)  # never a 500
    assert "Traceback" not in "\n".join(log)
    assert len([line for line in log if "no approval rule is set" in line]) == 1  # said at start
    refused = [line for line in log if "refused a signed Slack request" in line]
    assert len(refused) == len(MALFORMED)
    assert len([line for line in log if "bad or stale signature" in line]) == len(MALFORMED)


async def press(lab: Deployment, message: Posted, label: str, user: str) -> None:
    status, _ = await lab.slack.senders[0].interaction(
        click(message, label, user=user, name=PEOPLE[user])
    )
    assert status == 200


async def refusal_to(api: SlackApiStandIn, user: str, count: int) -> str:
    notes = await api.wait_for(
        lambda: (n := [e for e in api.ephemerals if e["user"] == user]) and len(n) >= count and n
    )
    return str(notes[count - 1]["text"])


async def test_approvals_bound_to_people_and_devices(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    owners = tmp_path / "owners"
    owners.write_text("R1  @netops U1\nR2  U3\n")  # the requester owns R1 too
    async with serving(tmp_path, slack_api, LABBOT_OWNERS=str(owners)) as lab:  # type: ignore[attr-defined]
        thread = await lab.slack.mention(NTP, user="U1")
        template = await lab.slack.gate(thread, "Approve")
        await press(lab, template, "Approve", "U1")  # the requester
        own = await refusal_to(slack_api, "U1", 1)
        attempt("approvals over Slack: self-approval", "four-eyes" in own)
        await press(lab, template, "Approve", "U2")  # owns nothing
        stranger = await refusal_to(slack_api, "U2", 1)
        attempt("approvals over Slack: not an owner", "you own none of R1, R2" in stranger)
        posing = click(template, "Approve", user="U2", name="carol")  # carol's name, bob's id
        await lab.slack.senders[0].interaction(posing)
        named = await refusal_to(slack_api, "U2", 2)
        attempt("approvals over Slack: a name posing as an owner", "you own none" in named)
        elsewhere = click(template, "Approve", user="U3", name="carol")
        elsewhere["channel"]["id"] = elsewhere["container"]["channel_id"] = "D3"  # her DM
        await lab.slack.senders[0].interaction(elsewhere)
        moved = await refusal_to(slack_api, "U3", 1)
        attempt("approvals over Slack: a click moved to another place", "stale" in moved)
        await press(lab, template, "Approve", "U4")  # @netops (usergroups.users.list): R1
        waiting = await lab.slack.said(thread, "an owner of R2")
        attempt("approvals over Slack: owner of some targets only", "R2" in waiting.all_text)
        await press(lab, template, "Approve", "U3")
        preview = await lab.slack.gate(thread, "Execute")
        for user, count in (("U1", 2), ("U2", 3)):
            await press(lab, preview, "Execute", user)
            text = await refusal_to(slack_api, user, count)
            attempt("approvals over Slack: push by requester or stranger", "Refused" in text)
        untouched = not any(pushed(lab).values())
        await press(lab, preview, "Execute", "U4")
        await press(lab, preview, "Execute", "U3")
        await lab.slack.said(thread, "pushed: ✓ 2")
        log = "\n".join(lab.replicas[0].log)
    assert "no approval rule is set" not in log  # an owners file is a rule
    assert "four-eyes" in own and "you own none of R1, R2" in stranger
    assert untouched
    done = pushed(lab)
    assert done["R1"] and done["R2"] and sum(done.values()) == 2
    assert any(c.method == "usergroups.users.list" for c in slack_api.calls)
    # what was pushed is what the preview showed
    assert "ntp server 10.7.7.7" in preview.all_text


async def test_the_door_and_what_slack_shows(tmp_path: Path, slack_api: SlackApiStandIn) -> None:
    settings = {"LABBOT_MAX_OPEN_PER_USER": "1"}
    async with serving(tmp_path, slack_api, **settings) as lab:  # type: ignore[attr-defined]
        thread = await lab.slack.mention(NTP, user="U3")
        await lab.slack.gate(thread, "Approve")
        second = await lab.slack.mention(NTP, user="U3")
        capped = await refusal_to(slack_api, "U3", 1)
        attempt("door over Slack: too many open changes", "LABBOT_MAX_OPEN_PER_USER" in capped)
        loud = "apply ntp to R1 <!channel> <!here> <@U2> servers=10.7.7.7"
        noisy = await lab.slack.mention(loud, user="U2")
        await lab.slack.said(noisy, "failed")  # the targets refuse the stray words
        huge = "apply ntp to R1 servers=10.7.7.8 " + "B" * 1_000_000
        status, _ = await lab.slack.senders[0].event(mention(huge, user="U4"))
        tooling = await refusal_to(slack_api, "U4", 1)
        async with lab.audit() as audit:
            rows = await audit.entries()
        posted = [m.all_text for m in slack_api.messages.values()]
        ephemeral = [e["text"] for e in slack_api.ephemerals]
    live = [t for t in posted if "<!channel>" in t or "<!here>" in t or "<@U2>" in t]
    attempt("slack mentions echoed", not live)
    assert not live and any("&lt;!channel&gt;" in t for t in posted)
    assert status == 200 and "LABBOT_MAX_REQUEST_CHARS" in tooling and "\n" not in tooling
    echoed = any("BBBBBBBBBB" in t for t in posted + ephemeral)
    stored = any("BBBBBBBBBB" in entry_summary(row, MASK) for row in rows)
    attempt("door over Slack: oversized request", not echoed and not stored)
    assert not echoed and not stored
    assert not [m for m in lab.slack.thread(second) if "Step 1" in m.all_text]


async def test_credentials_never_reach_chat_logs_or_audit(
    tmp_path: Path, slack_api: SlackApiStandIn, llm: object
) -> None:
    from tests.fakes.openai_server import OpenAIStandIn, error

    assert isinstance(llm, OpenAIStandIn)
    key = "sk-live-Abc123Def456Ghi789"
    llm.script(error(500, f"upstream rejected the request with key {key}; try later"))
    settings = {
        "OPENAI_API_KEY": key,
        "OPENAI_BASE_URL": llm.base_url,
        "LABBOT_LLM_MODEL": llm.model,
    }
    async with serving(tmp_path, slack_api, **settings) as lab:  # type: ignore[attr-defined]
        thread = await lab.slack.mention("configure ntp server 10.5.5.5 on R1")
        failed = await lab.slack.said(thread, "HTTP 500")
        async with lab.audit() as audit:
            rows = await audit.entries()
        log = "\n".join(lab.replicas[0].log)
    seen = {
        "chat": any(key in m.all_text for m in slack_api.messages.values()),
        "audit": any(key in entry_summary(row, MASK) for row in rows),
        "log": key in log,
    }
    for where, leaked in seen.items():
        attempt(f"credential scrubbed from {where}", not leaked)
    assert seen == {"chat": False, "audit": False, "log": False}
    assert "‹OPENAI_API_KEY›" in failed.all_text


async def test_direct_messages_forged_modify_and_oversized_bodies(
    tmp_path: Path, slack_api: SlackApiStandIn
) -> None:
    owners = tmp_path / "owners"
    owners.write_text("R*  U3\n")
    async with serving(tmp_path, slack_api, LABBOT_OWNERS=str(owners)) as lab:  # type: ignore[attr-defined]
        sender = lab.slack.senders[0]
        direct = fixture("message_im")
        direct["event"]["text"] = NTP
        await sender.event(direct)
        in_dm = await refusal_to(slack_api, "U1", 1)
        attempt("approvals over Slack: direct message", "direct messages need" in in_dm)
        thread = await lab.slack.mention(NTP, user="U1")
        template = await lab.slack.gate(thread, "Approve")
        await press(lab, template, "Modify", "U2")  # opens the dialog for anyone...
        view = await slack_api.wait_for(lambda: slack_api.views and slack_api.views[-1])
        await sender.interaction(submission(view, "add a backdoor user", user="U2", name="bob"))
        modify = await refusal_to(slack_api, "U2", 1)
        attempt("approvals over Slack: stranger modifies", "you own none" in modify)
        await press(lab, template, "Modify", "U3")
        second = await slack_api.wait_for(
            lambda: slack_api.views[-1] is not view and slack_api.views[-1]
        )
        huge = submission(second, "x" * 1_000_000, user="U3", name="carol")
        await sender.interaction(huge)
        oversized = await refusal_to(slack_api, "U3", 1)
        attempt("door over Slack: oversized request", "LABBOT_MAX_REQUEST_CHARS" in oversized)
        body = json.dumps(mention("a" * 2_000_000)).encode()
        too_big = await signed_post(lab.replicas[0].events_url, body, "application/json")
        attempt("door over Slack: oversized request", too_big == 413)
        still = [m for m in lab.slack.thread(thread) if m.buttons]
        log = "\n".join(lab.replicas[0].log)
    assert "direct messages need an explicit rule" in in_dm
    assert "you own none of" in modify and "LABBOT_MAX_REQUEST_CHARS" in oversized
    assert too_big == 413 and "Traceback" not in log
    assert len(still) == 1 and "Step 1 of 2" in still[0].all_text  # nothing moved on
