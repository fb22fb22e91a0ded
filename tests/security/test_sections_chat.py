"""Sections by effect through the bot: a hostile LLM (the OpenAI-compatible stand-in) answers
templates whose lines are written inside their sections but land outside them on IOS, or hide a
place behind a whitespace or hierarchy trick. The real decision service, graph, saver (SQLite),
labsim twin and simulated lab: nothing reaches a device that the thread did not show at its
real place; pushed anyway (the twin could not answer in time), the line is reported where it
landed at once and the rollback restores the device."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from adapters.chat import Request
from bot.runtime.wiring import Runtime
from labsim import Lab
from tests.bot.chat import RecordingAdapter, click, person
from tests.fakes.openai_server import OpenAIStandIn, structured
from tests.security.replay import attacked_bot, attacked_lab, configs, thread
from tests.security.tally import attempt

NTP = "ntp server 10.6.6.6"  # not deny-listed: only where it lands tells
LENIENT = ["router ospf * / network *", "router ospf * / ntp server *", "router ospf * / ip *"]
LENIENT += ["interface * / ip *", "interface * / description *"]


def template(source: str, sections: list[str], *switches: str) -> dict[str, Any]:
    """An LLM's template; each of `switches` a bool parameter, false in the example."""
    return {
        "name": "tweak",
        "description": "OSPF on the core link",
        "templates": {"cisco_ios": source},
        "params_schema": {name: {"type": "bool"} for name in switches},
        "example_params": dict.fromkeys(switches, False),
        "targets": ["R1"],
        "sections": sections,
    }


@asynccontextmanager
async def hostile(
    tmp_path: Path, chat: RecordingAdapter, *answers: dict[str, Any], **settings: Any
) -> AsyncIterator[tuple[Lab, Runtime]]:
    with OpenAIStandIn() as llm:
        llm.script(*(structured(answer) for answer in answers))
        options = {
            "openai_api_key": SecretStr("sk-standin"),
            "openai_base_url": llm.base_url,
            "plan_attempts": 1,
            **settings,
        }
        async with attacked_lab() as lab, attacked_bot(tmp_path, lab, chat, **options) as bot:
            yield lab, bot


def said(chat: RecordingAdapter) -> str:
    return "\n".join(
        m.text + "".join(f"\n{b.title}\n{b.text}" for b in m.blocks) for m in chat.messages()
    )


LANDS_GLOBAL = [
    (f"router ospf 1\n network 10.0.12.0 0.0.0.255 area 0\n {NTP}\n", NTP),
    ("router ospf 1\n ip domain-name evil.example\n", "ip domain-name evil.example"),
    ("interface GigabitEthernet0/1\n ip http server\n", "ip http server"),
    ("interface GigabitEthernet0/1\n ip route 0.0.0.0 0.0.0.0 Null0\n", "ip route 0.0.0.0"),
]


@pytest.mark.parametrize(("source", "lands"), LANDS_GLOBAL, ids=[c[1] for c in LANDS_GLOBAL])
async def test_a_line_landing_outside_in_the_example_never_reaches_a_gate(
    tmp_path: Path, source: str, lands: str
) -> None:
    chat = RecordingAdapter()
    async with hostile(tmp_path, chat, template(source, LENIENT)) as (lab, bot):
        before = configs(lab)
        await bot.service.handle(Request(thread("t"), person("mallory"), "ospf on R1"))
        unchanged = configs(lab) == before
    text = said(chat)
    refused = not any(m.buttons for m in chat.messages()) and unchanged
    attempt("sections via chat: example line landing outside (mode grammar)", refused)
    assert refused, text
    assert f"`{lands}" in text and "is not a command of the mode it is written in" in text, text
    assert "(lands at: global)" in text, text


async def test_a_line_landing_outside_behind_a_parameter_never_reaches_the_params_gate(
    tmp_path: Path,
) -> None:
    source = (
        "router ospf 1\n network 10.0.12.0 0.0.0.255 area 0\n{% if x %} " + NTP + "\n{% endif %}"
    )
    chat = RecordingAdapter()
    answers = (template(source, LENIENT, "x"), {"common": {"x": True}})
    async with hostile(tmp_path, chat, *answers) as (lab, bot):
        before = configs(lab)
        await bot.service.handle(Request(thread("t"), person("mallory"), "ospf on R1"))
        assert "Step 1 of 2" in chat.last_gate()[1].text  # the example is clean
        await bot.service.handle(click(chat, "bob", thread=thread("t")))
        unchanged = configs(lab) == before
    text = said(chat)
    refused = "Step 2 of 2" not in text and unchanged
    attempt("sections via chat: a parameter's line landing outside (mode grammar)", refused)
    assert refused, text
    assert f"R1: line 3 `{NTP}` is not a command of the mode it is written in" in text, text


WRITTEN = [
    ("tab indentation", f"router ospf 1\n\t{NTP}\n", LENIENT, "ASCII spaces"),
    ("NBSP indentation", f"router ospf 1\n\u00a0{NTP}\n", LENIENT, "ASCII spaces"),
    ("U+3000 indentation", f"router ospf 1\n\u3000{NTP}\n", LENIENT, "ASCII spaces"),
    ("exit", f"router ospf 1\n exit\n {NTP}\n", LENIENT, "changes the CLI mode"),
    ("end", "router ospf 1\nend\n", LENIENT, "changes the CLI mode"),
    ("!", f"router ospf 1\n !\n {NTP}\n", LENIENT, "changes the CLI mode"),
    ("do", "router ospf 1\n do clear ip bgp *\n", LENIENT, "exec command"),
    ("open banner", f"banner motd ^C\n{NTP}\n^C\n", ["banner motd *"], "banner"),
    ("* section", f"{NTP}\n", ["*"], "literal word"),
    ("bare top level", f"router ospf 1\n {NTP}\n", ["router ospf *"], "outside the sections"),
]


@pytest.mark.parametrize(
    ("what", "source", "sections", "why"), WRITTEN, ids=[w[0] for w in WRITTEN]
)
async def test_a_whitespace_or_hierarchy_trick_never_reaches_a_gate(
    tmp_path: Path, what: str, source: str, sections: list[str], why: str
) -> None:
    chat = RecordingAdapter()
    async with hostile(tmp_path, chat, template(source, sections)) as (lab, bot):
        before = configs(lab)
        await bot.service.handle(Request(thread("t"), person("mallory"), "ospf on R1"))
        unchanged = configs(lab) == before
    text = said(chat)
    refused = not any(m.buttons for m in chat.messages()) and unchanged
    attempt(f"sections via chat: {what}", refused)
    assert refused and why in text, text


async def test_the_params_gate_shows_each_line_where_it_lands(tmp_path: Path) -> None:
    source = "router ospf 1\n network 10.0.12.0 0.0.0.255 area 0\n"
    chat = RecordingAdapter()
    answers = (template(source, ["router ospf * / network *"]), {"common": {}})
    async with hostile(tmp_path, chat, *answers) as (_, bot):
        await bot.service.handle(Request(thread("t"), person("alice"), "ospf on R1"))
        await bot.service.handle(click(chat, "bob", thread=thread("t")))
        _, gate = chat.last_gate()
    blocks = {block.title: block.text for block in gate.blocks}
    assert "Step 2 of 2" in gate.text
    assert "checked on a copy of 1 device(s)" in gate.text
    assert blocks["R1 configuration"] == (
        "router ospf 1                        ← global\n"
        " network 10.0.12.0 0.0.0.255 area 0  ← router ospf 1"
    )
    assert len(blocks) == 2  # its parameters, then its lines once: its copy holds them as written


async def test_pushed_anyway_a_line_outside_is_reported_at_once_and_rolled_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As for a gate opened by an older release, which had neither a twin nor a mode grammar
    (the twin cannot answer in time, the grammar's reading is left out): the push happens, and
    R1's own before/after diff shows the line in global config."""
    monkeypatch.setattr("workflow.safety.sections.landing_problems", lambda *_: [])
    # rendered in this process (render_workers=0), where the reading is left out
    source = f"router ospf 1\n network 10.0.12.0 0.0.0.255 area 0\n {NTP}\n"
    chat = RecordingAdapter()
    answers = (template(source, LENIENT), {"common": {}})
    async with hostile(tmp_path, chat, *answers, twin_seconds=0.000001, render_workers=0) as (
        lab,
        bot,
    ):
        before = configs(lab)
        await bot.service.handle(Request(thread("t"), person("alice"), "ospf on R1"))
        await bot.service.handle(click(chat, "bob", thread=thread("t")))
        await bot.service.handle(click(chat, "bob", thread=thread("t")))
        pushed = lab.device("R1").running_config()
        _, gate = chat.last_gate()
        await bot.service.handle(click(chat, "carol", thread=thread("t")))
        after = configs(lab)
    blocks = {block.title: block.text for block in gate.blocks}
    reported = "Lines landed outside the template's sections" in gate.text
    attempt("sections via chat: landed outside after the push, reported", reported)
    assert reported, said(chat)
    assert f"\n{NTP}\n" in pushed  # IOS put it in global configuration
    assert blocks["R1: outside the sections"] == NTP
    assert after == before
    assert "rolled back as approved by carol" in said(chat)
