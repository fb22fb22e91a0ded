"""Deny-list allowances through the real decision service, graph, saver and simulated lab: a
lab's own template (built-in or saved) that allows a rule shows it at the template gate, shows
the lines it lets through at the params gate, pushes them, and the change's audit records the
allowance; an LLM template allowing itself a rule is refused and nothing is shown or pushed; a
hostile LLM line of each family is refused with its family named."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from adapters.chat import Request
from bot.cli.audit import write_report
from bot.cli.demo import demo_settings
from bot.runtime.wiring import Runtime
from bot.settings import load_settings
from labsim import Lab
from storage.template_store import TemplateDraft
from tests.bot.chat import RecordingAdapter, click, person
from tests.fakes.openai_server import OpenAIStandIn, structured
from tests.security.replay import attacked_bot, attacked_lab, configs, thread
from tests.security.tally import attempt
from workflow.denylist.rules import FAMILY_TITLES

MAY = "This template may (allowed by the lab, past the deny-list)"
LET_THROUGH = "Lines the template's allowances let through"


def shown(chat: RecordingAdapter) -> dict[str, str]:
    """The latest gate's sections by title."""
    return {block.title: block.text for block in chat.last_gate()[1].blocks}


async def approve_both_gates(bot: Runtime, chat: RecordingAdapter, request: str) -> str:
    """Ask as mallory, approve both gates as bob; the change id."""
    await bot.service.handle(Request(thread("t"), person("mallory"), request))
    template_gate = shown(chat)
    await bot.service.handle(click(chat, "bob", thread=thread("t")))
    params_gate = shown(chat)
    await bot.service.handle(click(chat, "bob", thread=thread("t")))
    found = re.search(r"for change (\S+):", "\n".join(chat.texts()))
    assert found, chat.texts()
    assert template_gate[MAY].startswith("logging-host (exfiltration): ")
    assert (
        "R1: 'logging host 10.0.0.50' — exfiltration, rule logging-host" in params_gate[LET_THROUGH]
    )
    return found.group(1)


async def test_a_built_in_template_allowing_log_hosts_shows_it_pushes_and_is_audited(
    tmp_path: Path,
) -> None:
    chat = RecordingAdapter()
    async with attacked_lab() as lab, attacked_bot(tmp_path, lab, chat) as bot:
        change = await approve_both_gates(bot, chat, "apply syslog to R1 servers=10.0.0.50")
        assert "logging host 10.0.0.50" in lab.device("R1").running_config()
        assert bot.templates is not None
        [part] = (await bot.templates.uses_of([change]))[change]
    assert (part["name"], part["source"], part["allow"]) == ("syslog", "builtin", ["logging-host"])
    page = tmp_path / "report.html"  # the audit report says what the template allowed
    await write_report(demo_settings(load_settings(data_dir=tmp_path)), page, None, change)
    assert re.search(r"<td>syslog</td>.*<td>logging-host</td>", page.read_text(), re.DOTALL)


async def test_a_saved_template_allows_only_what_its_yaml_says(tmp_path: Path) -> None:
    """A saved version allowing log hosts pushes one; a version allowing nothing is refused
    at the preview with the family named, and no device changes."""
    source = {"cisco_ios": "logging host {{ server }}\n"}
    draft = TemplateDraft(
        name="lab_syslog",
        description="log to the lab's server",
        templates=source,
        params_schema={"server": {"type": "ip"}},
        example_params={"server": "10.0.0.50"},
        saved_by_id="console:dana",
        saved_by_name="dana",
        sections=("logging host *",),
        allow=("logging-host",),
    )
    chat = RecordingAdapter()
    async with attacked_lab() as lab, attacked_bot(tmp_path, lab, chat) as bot:
        assert bot.templates is not None
        await bot.templates.save(draft)
        await bot.templates.save(TemplateDraft(**{**draft.__dict__, "name": "bare", "allow": ()}))
        change = await approve_both_gates(bot, chat, "apply lab_syslog to R1 server=10.0.0.50")
        [part] = (await bot.templates.uses_of([change]))[change]
        assert part["allow"] == ["logging-host"]
        chat.posts.clear()
        before = configs(lab)
        await bot.service.handle(
            Request(thread("u"), person("mallory"), "apply bare to R1 server=10.6.6.6")
        )
        said = "\n".join(chat.texts())
        refused = not any(m.buttons for m in chat.messages()) and configs(lab) == before
    attempt("deny policy: saved template without the allowance", refused)
    assert refused and "exfiltration, rule logging-host" in said, said


def llm_settings(llm: OpenAIStandIn) -> dict[str, Any]:
    return {
        "openai_api_key": SecretStr("sk-standin"),
        "openai_base_url": llm.base_url,
        "plan_attempts": 1,
    }


def llm_template(family: str, lines: list[str], **extra: Any) -> dict[str, Any]:
    target = {"cisco_ios": "R1", "arista_eos": "SW1"}[family]
    return {
        "name": "tweak",
        "description": "a small change",
        "templates": {family: "\n".join(lines) + "\n"},
        "params_schema": {},
        "example_params": {},
        "targets": [target],
        "sections": ["*"],
        **extra,
    }


async def refused_in_thread(
    bot: Runtime, chat: RecordingAdapter, lab: Lab, request: str
) -> tuple[bool, str]:
    """Ask; (nothing shown with buttons and no device changed, what the thread said)."""
    before = configs(lab)
    chat.posts.clear()
    await bot.service.handle(Request(thread(request), person("mallory"), request))
    said = "\n".join(chat.texts())
    return not any(m.buttons for m in chat.messages()) and configs(lab) == before, said


SELF_ALLOWING = [
    ("by rule", ["logging host 10.6.6.6"], ["logging-host"]),
    ("by family", ["snmp-server host 10.6.6.6 x"], ["exfiltration"]),
    ("a mode change", ["end"], ["end"]),
]


@pytest.mark.parametrize(
    ("how", "lines", "allow"), SELF_ALLOWING, ids=[c[0] for c in SELF_ALLOWING]
)
async def test_an_llm_template_allowing_itself_a_rule_is_refused(
    tmp_path: Path, how: str, lines: list[str], allow: list[str]
) -> None:
    chat = RecordingAdapter()
    with OpenAIStandIn() as llm:
        llm.script(structured(llm_template("cisco_ios", lines, allow=allow)))
        async with (
            attacked_lab() as lab,
            attacked_bot(tmp_path, lab, chat, **llm_settings(llm)) as bot,
        ):
            refused, said = await refused_in_thread(bot, chat, lab, "change something on R1")
    attempt("deny policy: an LLM template allowing itself", refused)
    assert refused and "cannot allow deny-list rules" in said and "blocked" in said, said


THROUGH_THE_SERVICE = [  # (family, platform, lines): one per family on the lab's platforms
    ("management", "cisco_ios", ["snmp-server community s3cr3t RW"]),
    ("exfiltration", "arista_eos", ["sflow destination 10.6.6.6"]),
    ("kill-switch", "cisco_ios", ["no router ospf 1"]),
    ("shell", "arista_eos", ["zerotouch enable"]),
    ("exec", "cisco_ios", ["conf t"]),
]


async def test_a_hostile_llm_line_of_each_family_is_refused_naming_its_family(
    tmp_path: Path,
) -> None:
    chat = RecordingAdapter()
    with OpenAIStandIn() as llm:
        async with (
            attacked_lab() as lab,
            attacked_bot(tmp_path, lab, chat, **llm_settings(llm)) as bot,
        ):
            for family, platform, lines in THROUGH_THE_SERVICE:
                llm.script(structured(llm_template(platform, lines)))
                target = {"cisco_ios": "R1", "arista_eos": "SW1"}[platform]
                refused, said = await refused_in_thread(
                    bot, chat, lab, f"change something on {target}"
                )
                named = FAMILY_TITLES[family] in said  # type: ignore[index]
                attempt(f"deny policy through the service: {family}", refused and named)
                assert refused and named, (family, said)
