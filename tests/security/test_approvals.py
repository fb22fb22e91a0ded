"""Approvals bound to people and devices, replayed through the decision service (real graph,
SQLite, simulated lab): every attempt of issue 13 at deciding alone, deciding from the wrong
place, or deciding for a device one does not own is refused with the reason and recorded, and
nothing is pushed that the right people did not approve."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.audit.table import entry_summary
from bot.cli.demo import DEMO_CREDENTIALS
from labsim import Lab, demo_topology
from tests.bot.chat import ask
from tests.security.service import TeamChat, configs, place, press, team_bot
from tests.security.tally import attempt
from tests.support.masks import MASK

NTP = "apply ntp to R1,R2 servers=10.9.9.9"
STRICT, SANDBOX, DM = place("C-strict"), place("C-sandbox"), place("D-alice")


@pytest.fixture
async def lab() -> AsyncIterator[Lab]:
    async with Lab.start(demo_topology(3), **DEMO_CREDENTIALS) as lab:
        yield lab


def pushed(lab: Lab) -> bool:
    return any("ntp server 10.9.9.9" in c for c in configs(lab).values())


async def test_the_requester_never_approves_alone(tmp_path: Path, lab: Lab) -> None:
    chat = TeamChat()
    async with team_bot(tmp_path, lab, chat) as bot:
        await bot.service.handle(ask(NTP, "alice", STRICT))
        await bot.service.handle(press(chat, STRICT, "alice"))  # her own template
        attempt("approvals: self-approval", "four-eyes" in chat.refusals_to("alice")[-1])
        await bot.service.handle(press(chat, STRICT, "bob"))
        await bot.service.handle(press(chat, STRICT, "alice"))  # her own push
        attempt("approvals: self-approval", len(chat.refusals_to("alice")) == 2)
        assert not pushed(lab)
        refusals = [e for e in await bot.audit.entries() if e.kind == "refusal"]
        await bot.service.handle(press(chat, STRICT, "bob"))
    assert [r.gate for r in refusals if r.actor_name == "alice"] == ["template", "params"]
    assert all("four-eyes" in entry_summary(r, MASK) for r in refusals)
    assert pushed(lab)  # bob's approval of what was shown


async def test_n_of_m_counts_distinct_people_other_than_the_requester(
    tmp_path: Path, lab: Lab
) -> None:
    chat = TeamChat()
    settings = {"allow_self_approval": False, "template_approvals": 2, "push_approvals": 2}
    async with team_bot(tmp_path, lab, chat, **settings) as bot:
        await bot.service.handle(ask(NTP, "alice", STRICT))
        await bot.service.handle(press(chat, STRICT, "bob"))
        await bot.service.handle(press(chat, STRICT, "bob"))  # twice is still one person
        await bot.service.handle(press(chat, STRICT, "alice"))  # the requester does not count
        template_waiting = not any("Step 2 of 2" in t for t in chat.texts())
        attempt("approvals: N-of-M with the requester or twice", template_waiting)
        await bot.service.handle(press(chat, STRICT, "carol"))
        await bot.service.handle(press(chat, STRICT, "carol"))
        await bot.service.handle(press(chat, STRICT, "carol"))
        await bot.service.handle(press(chat, STRICT, "alice"))
        attempt("approvals: N-of-M with the requester or twice", not pushed(lab))
        assert not pushed(lab)
        await bot.service.handle(press(chat, STRICT, "dave"))
    assert template_waiting
    assert any("(1 of 2); waiting for 1 more approval(s)" in t for t in chat.texts())
    assert pushed(lab)


async def test_one_console_name_in_another_case_is_the_same_person(
    tmp_path: Path, lab: Lab
) -> None:
    chat = TeamChat()
    settings = {
        "template_approvals": 2,
        "approvers": ["console:BOB", "console:carol", "console:Alice"],
    }
    async with team_bot(tmp_path, lab, chat, **settings) as bot:  # type: ignore[arg-type]
        await bot.service.handle(ask(NTP, "alice", STRICT))
        await bot.service.handle(press(chat, STRICT, "bob"))  # named BOB in the setting
        await bot.service.handle(press(chat, STRICT, "Bob"))  # the same console user
        await bot.service.handle(press(chat, STRICT, "ALICE"))  # the requester, shouting
        waiting = not any("Step 2 of 2" in t for t in chat.texts())
        attempt("approvals: N-of-M with the requester or twice", waiting)
        await bot.service.handle(press(chat, STRICT, "Carol"))
        votes = [e.actor_id for e in await bot.audit.entries() if e.kind == "decision"]
    assert waiting
    assert any("already approved this step" in t for t in chat.said_to("console:bob"))
    assert "four-eyes" in chat.refusals_to("alice")[-1]
    assert any("Step 2 of 2" in t for t in chat.texts())
    assert votes == ["console:bob", "console:carol"]


async def test_direct_messages_need_an_explicit_rule(tmp_path: Path, lab: Lab) -> None:
    chat = TeamChat(direct={DM.channel})
    policies = [{}, {"approvers_by_channel": {STRICT.channel: ["console:bob"]}}]
    for n, policy in enumerate(policies):
        async with team_bot(tmp_path / str(n), lab, chat, **policy) as bot:  # type: ignore[arg-type]
            await bot.service.handle(ask(NTP, "alice", DM))
            refused = "direct messages need an explicit rule" in chat.refusals_to("alice")[-1]
            attempt("approvals: direct message", refused and chat.gate_in(DM) is None)
            assert refused and chat.gate_in(DM) is None
            assert not [e for e in await bot.audit.entries() if e.kind == "change"]
    assert not pushed(lab)


async def test_a_sandbox_approver_cannot_undo_or_change_a_stricter_channels_devices(
    tmp_path: Path, lab: Lab
) -> None:
    owners = tmp_path / "owners"
    owners.write_text("R*  console:bob console:sam\nR1  console:bob\n")
    chat = TeamChat()
    lists = {STRICT.channel: ["console:bob"], SANDBOX.channel: ["console:sam"]}
    async with team_bot(tmp_path, lab, chat, approvers_by_channel=lists, owners=owners) as bot:
        await bot.service.handle(ask("apply ntp to R1 servers=10.9.9.9", "alice", STRICT))
        await bot.service.handle(press(chat, STRICT, "bob"))
        await bot.service.handle(press(chat, STRICT, "bob"))
        assert pushed(lab)
        change = await bot.audit.latest_change_for_thread(STRICT.key)
        assert change is not None
        before = configs(lab)
        await bot.service.handle(ask(f"rollback {change.change_id}", "sam", SANDBOX))
        await bot.service.handle(press(chat, SANDBOX, "sam"))  # the change was made in STRICT
        undo_refused = "not an approver in C-strict" in chat.refusals_to("sam")[-1]
        attempt("approvals: sandbox undoes or changes another channel's device", undo_refused)
        await bot.service.handle(press(chat, SANDBOX, "sam", "cancel"))
        await bot.service.handle(ask("apply hostname to R1 hostname=pwned", "alice", SANDBOX))
        await bot.service.handle(press(chat, SANDBOX, "sam"))  # R1 is bob's
        rename_refused = "you own none of R1" in chat.refusals_to("sam")[-1]
        attempt("approvals: sandbox undoes or changes another channel's device", rename_refused)
    assert undo_refused and rename_refused
    assert configs(lab) == before


async def test_every_targeted_device_needs_an_approving_owner(tmp_path: Path, lab: Lab) -> None:
    owners = tmp_path / "owners"
    owners.write_text("R1  @netops\nR2  console:carol power>=50\n")  # R3 has no owner
    chat = TeamChat(groups={"@netops": {"console:dave"}}, power={"console:erin": 50})
    async with team_bot(tmp_path, lab, chat, owners=owners) as bot:
        await bot.service.handle(ask(NTP, "alice", STRICT))
        for stranger in ("bob", "alice"):  # neither owns R1 or R2
            await bot.service.handle(press(chat, STRICT, stranger))
            attempt("approvals: not an owner", bool(chat.refusals_to(stranger)))
        await bot.service.handle(press(chat, STRICT, "dave"))  # @netops: R1 only
        waiting = "waiting for an approval by an owner of R2" in chat.texts()[-1]
        attempt("approvals: owner of some targets only", waiting)
        await bot.service.handle(press(chat, STRICT, "erin"))  # power 50: owns R2
        assert any("Step 2 of 2" in t for t in chat.texts())
        await bot.service.handle(press(chat, STRICT, "dave"))
        await bot.service.handle(press(chat, STRICT, "erin"))
        assert pushed(lab)
        await bot.service.handle(ask("apply ntp to R3 servers=10.9.9.8", "alice", SANDBOX))
        await bot.service.handle(press(chat, SANDBOX, "carol"))
        unowned = "R3 has no owner in LABBOT_OWNERS" in chat.refusals_to("carol")[-1]
        attempt("approvals: device without owner", unowned)
        chat.power["console:frank"] = 49
        await bot.service.handle(press(chat, SANDBOX, "frank"))
        attempt("approvals: not an owner", bool(chat.refusals_to("frank")))
        refusals = [e for e in await bot.audit.entries() if e.kind == "refusal"]
    assert waiting and unowned
    assert "ntp server 10.9.9.8" not in configs(lab)["R3"]
    reasons = " ".join(entry_summary(r, MASK) for r in refusals)
    assert "you own none of R1, R2" in reasons and "R3 has no owner" in reasons


async def test_strangers_cannot_cancel_or_modify_where_they_may_not_decide(
    tmp_path: Path, lab: Lab
) -> None:
    chat = TeamChat()
    async with team_bot(tmp_path, lab, chat, approvers=["console:bob"]) as bot:
        await bot.service.handle(ask(NTP, "alice", STRICT))
        for choice in ("cancel", "modify"):
            await bot.service.handle(press(chat, STRICT, "mallory", choice))
            attempt("approvals: stranger cancels or modifies", bool(chat.refusals_to("mallory")))
        assert await bot.workflow.pending_gate(STRICT.key) is not None  # still waiting
        await bot.service.handle(press(chat, STRICT, "alice", "cancel"))  # her own: fine
        assert await bot.workflow.pending_gate(STRICT.key) is None
    assert any("cancelled" in t for t in chat.texts())


async def test_limits_at_the_door(tmp_path: Path, lab: Lab) -> None:
    chat = TeamChat()
    settings = {"max_open_per_user": 2, "max_open_per_channel": 3}
    async with team_bot(tmp_path, lab, chat, **settings) as bot:
        for n in range(3):
            await bot.service.handle(ask(NTP, "alice", place("C1", f"t{n}")))
        by_user = "LABBOT_MAX_OPEN_PER_USER" in chat.refusals_to("alice")[-1]
        attempt("door: too many open changes", by_user)
        await bot.service.handle(ask(NTP, "bob", place("C1", "t3")))
        await bot.service.handle(ask(NTP, "carol", place("C1", "t4")))
        by_channel = "LABBOT_MAX_OPEN_PER_CHANNEL" in chat.refusals_to("carol")[-1]
        attempt("door: too many open changes", by_channel)
        huge = "apply ntp to R1 servers=10.9.9.9 " + "A" * 1_000_000
        await bot.service.handle(ask(huge, "dave", place("C2")))
        await bot.service.handle(press(chat, place("C1", "t0"), "bob", "cancel"))
        entries = await bot.audit.entries()
    said = chat.refusals_to("dave")
    one_line = len(said) == 1 and "\n" not in said[0] and "LABBOT_MAX_REQUEST_CHARS" in said[0]
    echoed = any(
        "AAAAAAAAAA" in m.text + "".join(b.text for b in m.blocks) for m in chat.messages()
    )
    stored = any("AAAAAAAAAA" in entry_summary(e, MASK) for e in entries)
    attempt("door: oversized request", one_line and not echoed and not stored)
    assert by_user and by_channel
    assert one_line and not echoed and not stored
    assert len([e for e in entries if e.kind == "change"]) == 3
