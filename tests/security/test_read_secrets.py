"""What a read shows: secrets in the syntaxes the mask rules once missed (HSRP/VRRP keys in
clear, NHRP's key, IOS's type-6 master key, EOS's VRRP peer key), planted on a simulated IOS
router and EOS switch, never reach the chat or the LLM in clear, whatever the read: the whole
running configuration, a filter keeping only the lines that hold them, or a question the LLM
answers by reading the configurations (and quoting a key)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from bot.cli.demo import DEMO_CREDENTIALS
from labsim import Lab, demo_topology
from labsim.cli import CliSession
from tests.bot.chat import ask
from tests.fakes.openai_server import OpenAIStandIn, structured, text
from tests.security.service import TeamChat, place, team_bot
from tests.security.tally import attempt

PLANTED = {  # device -> lines at its console, each secret's value after it
    "R1": [
        ("key config-key password-encrypt Ios-Master-Key", "Ios-Master-Key"),
        ("interface GigabitEthernet0/0", ""),
        (" standby 1 authentication Ios-Hsrp-Key", "Ios-Hsrp-Key"),
        (" vrrp 2 authentication text Ios-Vrrp-Key", "Ios-Vrrp-Key"),
        (" ip nhrp authentication IosNhrp", "IosNhrp"),
    ],
    "SW1": [
        ("interface Ethernet1", ""),
        ("   vrrp 1 peer authentication text Eos-Vrrp-Key", "Eos-Vrrp-Key"),
    ],
}
VALUES = [value for lines in PLANTED.values() for _, value in lines if value]
HERE = place("C-lab")


@pytest.fixture
async def lab() -> AsyncIterator[Lab]:
    async with Lab.start(demo_topology(1), **DEMO_CREDENTIALS) as lab:
        for name, lines in PLANTED.items():
            console = CliSession(lab.device(name), privileged=True, secret="")
            for line in ["configure terminal", *(line for line, _ in lines), "end"]:
                console.feed_line(line)
        yield lab


def said(chat: TeamChat) -> str:
    messages = [m for _, _, m in chat.posts] + [m for _, m in chat.updates]
    return "\n".join(
        "\n".join(
            [m.text, m.footer, *(f"{b.title}\n{b.text}" for b in (*m.blocks, *m.attachments))]
        )
        for m in messages
    )


async def test_secrets_the_rules_once_missed_are_masked_in_reads_and_what_the_llm_reads(
    tmp_path: Path, lab: Lab, llm: OpenAIStandIn
) -> None:
    llm.script(
        structured({"device": "R1", "command": "show running-config"}),
        structured({"device": "SW1", "command": "show running-config | include authentication"}),
        text("R1's HSRP key is Ios-Hsrp-Key and SW1's VRRP key Eos-Vrrp-Key: they differ."),
    )
    chat = TeamChat()
    llm_settings = {"openai_api_key": SecretStr("sk-reads"), "openai_base_url": llm.base_url}
    async with team_bot(tmp_path, lab, chat, **llm_settings) as bot:
        for read in (
            "show running-config on R1,SW1 raw",
            "show running-config | include authentication on R1,SW1",
            "show running-config | include key on R1",
        ):
            await bot.service.handle(ask(read, "carol", HERE))
        await bot.service.handle(ask("why do R1 and SW1 not agree on VRRP?", "carol", HERE))
        mask = bot.service.reporter.mask
    shown, sent = said(chat), "\n".join(json.dumps(r.body) for r in llm.requests)
    assert shown.count("✓ R1") == 3 and len(llm.requests) == 3, shown  # every read answered
    leaks = {
        where: [v for v in VALUES if v in seen] for where, seen in (("chat", shown), ("LLM", sent))
    }
    attempt("reads: a secret the rules once missed, in clear", leaks == {"chat": [], "LLM": []})
    assert leaks == {"chat": [], "LLM": []}, leaks
    for value in VALUES:  # masked where it stands, the words around it kept
        assert mask.token(value) in shown, value
    assert f"standby 1 authentication {mask.token('Ios-Hsrp-Key')}" in shown
    assert f"vrrp 1 peer authentication text {mask.token('Eos-Vrrp-Key')}" in shown


async def test_a_read_listing_keys_no_mask_can_tell_is_refused_before_any_device_is_asked(
    tmp_path: Path, lab: Lab
) -> None:
    """IOS `show crypto isakmp key` prints each peer's pre-shared key alone in a column, with no
    keyword a mask rule could find beside it: refused, however abbreviated or filtered."""
    chat = TeamChat()
    async with team_bot(tmp_path, lab, chat) as bot:
        for read in ("show crypto isakmp key on R1", "sh cry isa key | include 10 on R1"):
            await bot.service.handle(ask(read, "carol", HERE))
    answers = chat.texts()
    refused = all("lists the IKE pre-shared keys in clear" in answer for answer in answers)
    attempt("reads: a read printing keys no mask can tell", refused and len(answers) == 2)
    assert refused and len(answers) == 2, answers
