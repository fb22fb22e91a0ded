"""Secrets on real FRR routers: the vty and enable passwords, OSPF keys and a BGP password,
configured through vtysh, never reach the chat or the LLM in clear. A read of the running
configuration shows each masked by its token; a question sends the LLM the same masked
configuration and its answer, quoting one, is masked before it is posted; nothing logged
carries one (at the levels `labbot serve` logs, through its filter)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from pydantic import SecretStr

from bot.views.redact import Scrubber, ScrubLogs
from frrlab import FrrLab
from tests.bot.chat import RecordingAdapter, ask
from tests.fakes.openai_server import OpenAIStandIn, structured, text
from tests.frrlab.test_chat_changes import bot_on

pytestmark = [
    pytest.mark.frr,
    pytest.mark.usefixtures("frr_host"),
    pytest.mark.xdist_group("frr-lab"),
]

FRR = {  # a line of each kind vtysh keeps, and its value
    "password Frr-Vty-Pw": "Frr-Vty-Pw",
    "enable password Frr-Enable-Pw": "Frr-Enable-Pw",
    "interface lo": "",
    " ip ospf authentication-key FrrOspf8": "FrrOspf8",  # FRR keeps 8 characters
    " ip ospf message-digest-key 1 md5 Frr-Md5-Key": "Frr-Md5-Key",
    "exit": "",
    "router bgp 65001": "",
    " neighbor 10.0.12.2 remote-as 65002": "",
    " neighbor 10.0.12.2 password Frr-Bgp-Pw": "Frr-Bgp-Pw",
}
PLANTED = [value for value in FRR.values() if value]


def everything(chat: RecordingAdapter) -> str:
    messages = chat.messages() + [m for _, m in chat.updates]
    return "\n".join(
        "\n".join([m.text, m.footer, *(b.text for b in (*m.blocks, *m.attachments))])
        for m in messages
    )


async def test_frr_passwords_and_keys_are_masked_in_reads_questions_and_answers(
    tmp_path: Path, llm: OpenAIStandIn, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)  # what `labbot serve` logs: its own news from INFO up
    llm.script(
        structured({"device": "R1", "command": "show running-config"}),
        text("R1 peers with BGP password Frr-Bgp-Pw; the vty password is Frr-Vty-Pw."),
    )
    chat = RecordingAdapter()
    llm_settings = {"openai_api_key": SecretStr("sk-frr"), "openai_base_url": llm.base_url}
    async with (
        FrrLab.start(prefix="secret") as lab,
        bot_on(lab, tmp_path, chat, **llm_settings) as bot,
    ):
        mask = bot.service.reporter.mask
        caplog.handler.addFilter(ScrubLogs(Scrubber.of(()), mask))  # as serve filters its log
        lab.vtysh("R1", "configure terminal", *FRR)
        configured = lab.vtysh("R1", "show running-config")
        await bot.service.handle(ask("show running-config on R1", "carol"))
        await bot.service.handle(ask("why does R1 not peer with R2 over BGP?", "carol"))
    assert all(value in configured for value in PLANTED), configured  # FRR keeps them all
    said = everything(chat)
    sent = "\n".join(json.dumps(r.body, ensure_ascii=False) for r in llm.requests)
    leaks = {
        where: [v for v in PLANTED if v in seen]
        for where, seen in (("chat", said), ("LLM", sent), ("log", caplog.text))
    }
    assert leaks == {"chat": [], "LLM": [], "log": []}, leaks
    for value in PLANTED:  # shown as its token where it stands, and so read by the LLM
        assert mask.token(value) in said and mask.token(value) in sent, value
    assert f"neighbor 10.0.12.2 password {mask.token('Frr-Bgp-Pw')}" in said
    assert f"message-digest-key 1 md5 {mask.token('Frr-Md5-Key')}" in said
