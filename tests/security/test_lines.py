"""Policy over lines: every hostile line of issue 13 (and more of each kind, per vendor) is
refused by the deny-list; ordinary configuration around the same words passes; lines outside
the sections a template declares are refused before any preview."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import SecretStr

from adapters.chat import Request
from bot.runtime.wiring import Runtime
from labsim import Lab
from storage.template_store import TemplateDraft
from tests.bot.chat import RecordingAdapter, click, person
from tests.fakes.openai_server import OpenAIStandIn, structured
from tests.security.hostile_lines import HARMLESS, HOSTILE
from tests.security.replay import attacked_bot, attacked_lab, configs, thread
from tests.security.tally import attempt
from workflow.safety.deny import DenyList
from workflow.safety.sections import declared_sections, outside_sections


@pytest.mark.parametrize(
    ("kind", "family", "lines"), HOSTILE, ids=[f"{k}:{f}:{ls[-1][:30]}" for k, f, ls in HOSTILE]
)
def test_hostile_lines_are_refused_with_a_reason(kind: str, family: str, lines: list[str]) -> None:
    violations = DenyList().check(lines, family)
    attempt(f"deny-list: {kind}", bool(violations))
    assert violations, f"{family}: not refused: {lines}"
    assert all(v.reason for v in violations)


@pytest.mark.parametrize(("family", "lines"), HARMLESS, ids=[ls[-1][:30] for _, ls in HARMLESS])
def test_ordinary_lines_pass(family: str, lines: list[str]) -> None:
    assert DenyList().check(lines, family) == []


OSPF_ONLY = ["router ospf * / router-id *", "router ospf * / network *", "interface * / ip ospf *"]
SCOPE_CASES = [
    ["router ospf 1", " network 10.0.0.0 0.0.0.255 area 0", "ip route 0.0.0.0 0.0.0.0 Null0"],
    ["interface Gi0/1", " ip ospf cost 10", " shutdown"],
    ["interface Gi0/1", " ip ospf cost 10", "snmp-server community x RW"],
    ["router ospf 1", "router bgp 65000", " neighbor 10.6.6.6 remote-as 666"],
    ["interface Gi0/1", " ip ospf cost 10", " ip address 10.6.6.6 255.255.255.0"],
    ["no router ospf 1"],
    ["ip ospf cost 10"],  # not under an interface: a global line outside the sections
]


@pytest.mark.parametrize("lines", SCOPE_CASES, ids=[c[-1][:30] for c in SCOPE_CASES])
def test_lines_outside_the_declared_sections_are_found(lines: list[str]) -> None:
    outside = outside_sections(lines, OSPF_ONLY)
    attempt("sections: lines outside the declared sections", bool(outside))
    assert outside and outside[-1][1] == lines[-1]


def test_lines_inside_the_declared_sections_pass() -> None:
    lines = ["router ospf 1", " router-id 1.1.1.1", "interface Gi0/1", " ip ospf cost 10"]
    assert outside_sections(lines, OSPF_ONLY) == []


def test_declared_sections_none_only_for_templates_from_before_sections() -> None:
    """None (not checked) is kept for a gate left pending by release 0.1.0, whose lines its
    approvers see; a template that declares none has every line outside."""
    assert declared_sections({"name": "ntp"}) is None
    assert declared_sections({"name": "ntp", "sections": []}) == []
    assert outside_sections(["ntp server 10.0.0.1"], []) == [(1, "ntp server 10.0.0.1")]


LLM_OSPF = {
    "name": "ospf-area0",
    "description": "OSPF area 0",
    "templates": {"cisco_ios": "router ospf {{ pid }}\n network 10.0.12.0 0.0.0.255 area 0\n"},
    "params_schema": {"pid": {"type": "int"}, "extra": {"type": "bool", "default": False}},
    "example_params": {"pid": 1},
    "targets": ["R1"],
    "sections": ["router ospf * / network *"],
}
SNEAKY = [
    ("in the example", "ip route 0.0.0.0 0.0.0.0 Null0\n", None),
    ("behind a parameter", "{% if extra %}ip route 0.0.0.0 0.0.0.0 Null0\n{% endif %}", True),
    ("no sections declared", "", None),
]


async def ask_and_approve(
    bot: Runtime, chat: RecordingAdapter, lab: Lab, request: str, source: str
) -> None:
    """Ask, approve the template gate if one is shown (it lists the sections), and check that
    no preview followed and no device changed, the sections named as the reason."""
    before = configs(lab)
    await bot.service.handle(Request(thread("t"), person("mallory"), request))
    if any(m.buttons for m in chat.messages()):
        shown = {b.title: b.text for b in chat.last_gate()[1].blocks}
        assert shown["May touch only"] == "router ospf * / network *"  # at the template gate
        await bot.service.handle(click(chat, "bob", thread=thread("t")))
    said = "\n".join(chat.texts())
    previewed = any("Step 2 of 2" in text for text in chat.texts())
    refused = not previewed and configs(lab) == before
    attempt(f"sections: {source} template outside its sections", refused)
    assert refused, said
    assert "sections" in said, said


@pytest.mark.parametrize(("where", "tail", "extra"), SNEAKY, ids=[s[0] for s in SNEAKY])
async def test_an_llm_template_reaching_outside_its_sections_is_never_previewed_or_pushed(
    tmp_path: Path, where: str, tail: str, extra: bool | None
) -> None:
    source = LLM_OSPF["templates"]["cisco_ios"] + tail  # type: ignore[index]
    template = {**LLM_OSPF, "templates": {"cisco_ios": source}}
    if where == "no sections declared":
        template.pop("sections")
    chat = RecordingAdapter()
    with OpenAIStandIn() as llm:
        llm.script(structured(template), structured({"common": {"pid": 1, "extra": extra}}))
        settings = {
            "openai_api_key": SecretStr("sk-standin"),
            "openai_base_url": llm.base_url,
            "plan_attempts": 1,
        }
        async with attacked_lab() as lab, attacked_bot(tmp_path, lab, chat, **settings) as bot:
            await ask_and_approve(bot, chat, lab, "ospf on R1", "LLM")


@pytest.mark.parametrize(("where", "tail", "extra"), SNEAKY, ids=[s[0] for s in SNEAKY])
async def test_a_saved_template_reaching_outside_its_sections_is_never_previewed_or_pushed(
    tmp_path: Path, where: str, tail: str, extra: bool | None
) -> None:
    """The same, for a template from the team library: its YAML declares the sections; a
    version declaring none (saved before they were declared) is refused too."""
    sections = () if where == "no sections declared" else tuple(LLM_OSPF["sections"])
    draft = TemplateDraft(
        name="lab_ospf",
        description="OSPF area 0",
        templates={"cisco_ios": LLM_OSPF["templates"]["cisco_ios"] + tail},  # type: ignore[index]
        params_schema=LLM_OSPF["params_schema"],  # type: ignore[arg-type]
        example_params=LLM_OSPF["example_params"],  # type: ignore[arg-type]
        saved_by_id="console:dana",
        saved_by_name="dana",
        sections=sections,
    )
    chat = RecordingAdapter()
    async with attacked_lab() as lab, attacked_bot(tmp_path, lab, chat) as bot:
        assert bot.templates is not None
        await bot.templates.save(draft)  # stored as is: the store checks nothing about lines
        request = f"apply lab_ospf to R1 pid=1{' extra=true' if extra else ''}"
        await ask_and_approve(bot, chat, lab, request, "saved")
