"""The template library end to end: the decision service, the real graph and saver (SQLite), the
simulated lab, chat commands as people type them."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from adapters.chat import ThreadRef
from bot.audit.table import entry_summary
from bot.cli.demo import DEMO_CREDENTIALS
from bot.runtime.wiring import Runtime
from labsim import Lab, demo_topology
from storage.template_store import TemplateDraft, TemplateStore
from tests.bot.chat import THREAD, RecordingAdapter, ask, click
from tests.bot.test_e2e_console import running_bot
from tests.support.masks import MASK
from workflow.library.catalog import load_catalog

OTHER = ThreadRef("console", "lab-channel", "t2")


@pytest.fixture
async def lab() -> AsyncIterator[Lab]:
    async with Lab.start(demo_topology(2), **DEMO_CREDENTIALS) as lab:
        yield lab


def ospf_draft(extra_line: str = "", name: str = "lab_ospf") -> TemplateDraft:
    """The built-in OSPF template, with one more line under `router ospf` when asked (and
    declared there)."""
    ospf = load_catalog().get("ospf")
    source = ospf.templates["cisco_ios"]
    sections = ospf.sections
    if extra_line:
        first, rest = source.split("\n", 1)
        source = f"{first}\n {extra_line}\n{rest}"
        sections = (*sections, f"router ospf * / {extra_line.split()[0]} *")
    return TemplateDraft(
        name=name,
        description=f"OSPF {extra_line or 'as built in'}",
        templates={"cisco_ios": source},
        params_schema=ospf.params_schema,
        example_params=ospf.example_params,
        derive=ospf.derive,
        phrases=ospf.phrases,
        sections=sections,
        saved_by_id="console:dana",
        saved_by_name="dana",
    )


def store_of(bot: Runtime) -> TemplateStore:
    assert bot.templates is not None
    return bot.templates


async def approve_all(bot: Runtime, chat: RecordingAdapter, thread: ThreadRef = THREAD) -> None:
    await bot.service.handle(click(chat, "bob", thread=thread))
    await bot.service.handle(click(chat, "bob", thread=thread))


async def test_save_the_approved_template_then_reuse_it_and_the_audit_names_the_version(
    tmp_path: Path, lab: Lab
) -> None:
    chat = RecordingAdapter()
    async with running_bot(tmp_path, lab, chat) as bot:
        await bot.service.handle(ask("apply ospf to R1,R2 area=0"))
        await bot.service.handle(click(chat, "bob"))  # the template
        await bot.service.handle(ask("save as lab_ospf OSPF for our lab", "carol"))
        saved_reply = chat.texts()[-1]
        await bot.service.handle(click(chat, "bob"))  # execute
        await bot.service.handle(ask("apply lab_ospf to R1", thread=OTHER))
        reuse_gate = chat.last_gate()[1]
        await approve_all(bot, chat, OTHER)
        change = await bot.audit.latest_change_for_thread(OTHER.key)
        assert change is not None
        entries = await bot.audit.entries(change_id=change.change_id)
        saved = await store_of(bot).resolve("lab_ospf", None, "")
        await bot.service.handle(ask("templates", thread=OTHER))
        listing = chat.messages()[-1]
        await bot.service.handle(ask("templates stats", thread=OTHER))
        stats = chat.messages()[-1]
        assert (await bot.audit.verify()).ok
    assert saved is not None and saved.version == 1 and saved.saved_by_name == "carol"
    assert saved.description == "OSPF for our lab" and saved.derive == "routing"
    assert saved_reply.startswith("Saved lab_ospf@1 (sha256 ")
    assert f"Uses lab_ospf@1 sha256 {saved.sha256[:12]}" in reuse_gate.text
    [used] = [e for e in entries if e.kind == "template"]
    assert entry_summary(used, MASK).startswith("template: lab_ospf@1 (saved) sha256")
    assert used.sha256 == saved.sha256
    [event] = [e for e in entries if e.kind == "event"]
    # the record keeps the library's zero tokens; the summary names none spent
    assert '"template":{"input_tokens":0,"output_tokens":0,"total_tokens":0}' in event.tokens
    assert "tokens" not in entry_summary(event, MASK)
    assert "lab_ospf@1" in listing.blocks[0].text and "by carol" in listing.blocks[0].text
    assert "lab_ospf@1" in stats.blocks[0].text and "R1 1/1" in stats.blocks[0].text
    assert "router ospf 1" in lab.device("R1").running_config()


async def test_a_change_approved_after_a_newer_save_pushes_what_was_approved(
    tmp_path: Path, lab: Lab
) -> None:
    chat = RecordingAdapter()
    async with running_bot(tmp_path, lab, chat) as bot:
        store = store_of(bot)
        await store.save(ospf_draft())
        await bot.service.handle(ask("apply lab_ospf to R1"))
        await store.save(ospf_draft("log-adjacency-changes detail"))  # v2, while v1 is reviewed
        await bot.service.handle(click(chat, "bob"))
        params_gate = chat.last_gate()[1]
        await bot.service.handle(click(chat, "bob"))
        result = chat.texts()[-1]
    assert "A newer version exists (lab_ospf@2)" in params_gate.text
    assert "router ospf 1" in lab.device("R1").running_config()
    assert "log-adjacency-changes" not in lab.device("R1").running_config()
    assert "pushed: ✓ 1" in result
    assert "A newer version exists: lab_ospf@2 (this change uses @1)" in result


async def test_combined_templates_render_as_one_configuration_per_device(
    tmp_path: Path, lab: Lab
) -> None:
    chat = RecordingAdapter()
    request = "apply loopback + ospf + ntp to R1,R2 number=7 servers=10.0.0.123"
    async with running_bot(tmp_path, lab, chat) as bot:
        await bot.service.handle(ask(request))
        template_gate = chat.last_gate()[1]
        await bot.service.handle(click(chat, "bob"))
        params_gate = chat.last_gate()[1]
        await bot.service.handle(click(chat, "bob"))
        change = await bot.audit.latest_change_for_thread(THREAD.key)
        assert change is not None
        entries = await bot.audit.entries(change_id=change.change_id)
    assert "Uses loopback (built-in) sha256" in template_gate.text
    assert "+ ospf (built-in)" in template_gate.text and "+ ntp (built-in)" in template_gate.text
    r1_lines = next(b.text for b in params_gate.blocks if b.title == "R1 configuration")
    assert r1_lines.index("interface Loopback7") < r1_lines.index("router ospf 1")
    assert r1_lines.index("router ospf 1") < r1_lines.index("ntp server 10.0.0.123")
    config = lab.device("R2").running_config()
    assert "interface Loopback7" in config and "router ospf 1" in config
    assert "ntp server 10.0.0.123" in config
    [used] = [e for e in entries if e.kind == "template"]
    assert entry_summary(used, MASK).count("(builtin)") == 3


async def test_a_template_whose_test_fails_is_flagged_at_its_gate_and_cannot_be_saved(
    tmp_path: Path, lab: Lab
) -> None:
    chat = RecordingAdapter()
    async with running_bot(tmp_path, lab, chat) as bot:
        store = store_of(bot)
        # a command IOS takes there, with a value it refuses: the grammar places it, the twin
        # refuses it (a line the grammar knows nowhere never reaches a gate)
        await store.save(ospf_draft("router-id 999.0.0.1", name="odd_ospf"))
        before = lab.device("R1").running_config()
        await bot.service.handle(ask("apply odd_ospf to R1"))
        gate = chat.last_gate()[1]
        await bot.service.handle(click(chat, "bob"))
        await bot.service.handle(ask("save as odd_ospf_fixed"))
        refusal = chat.messages()[-1]
        names = await store.names()
    assert "⚠️ Template test on a copy of R1 (cisco_ios)" in gate.text
    failed = next(b for b in gate.blocks if b.title.startswith("Template test failed (R1"))
    assert "router-id 999.0.0.1: % Invalid input" in failed.text
    assert lab.device("R1").running_config() == before  # the test touched no real device
    assert refusal.level == "error" and refusal.text.startswith("Not saved: the template test")
    assert names == ["odd_ospf"]


async def test_a_version_saved_before_sections_were_declared_is_refused_naming_the_fix(
    tmp_path: Path, lab: Lab
) -> None:
    chat = RecordingAdapter()
    async with running_bot(tmp_path, lab, chat) as bot:
        old = dataclasses.replace(ospf_draft(name="old_ospf"), sections=())  # a pre-0008 row
        await store_of(bot).save(old)
        before = lab.device("R1").running_config()
        await bot.service.handle(ask("apply old_ospf to R1"))
        said = chat.texts()
    assert not any(m.buttons for m in chat.messages()), said
    assert "old_ospf@1 declares no `sections`" in said[-1], said
    assert "labbot templates save FILE.yaml --name old_ospf" in said[-1]
    assert lab.device("R1").running_config() == before


async def test_bad_requests_get_a_clear_message_and_change_nothing(
    tmp_path: Path, lab: Lab
) -> None:
    chat = RecordingAdapter()
    async with running_bot(tmp_path, lab, chat) as bot:
        store = store_of(bot)
        await bot.service.handle(ask("save as lab_ospf"))
        nothing_approved = chat.texts()[-1]
        await store.save(ospf_draft())
        await bot.service.handle(ask("apply nope to R1", thread=OTHER))
        unknown = chat.texts()[-1]
        await bot.service.handle(
            ask("apply lab_ospf@9 to R1", thread=ThreadRef("console", "c", "3"))
        )
        no_version = chat.texts()[-1]
        await bot.service.handle(ask("templates lab_ospf@4"))
        no_version_shown = chat.texts()[-1]
        await bot.service.handle(ask("save as ospf"))
        versions = await store.versions("lab_ospf")
    assert nothing_approved.startswith("Nothing to save here")
    assert "There is no template 'nope', built-in or saved. Saved: lab_ospf." in unknown
    assert "There is no lab_ospf@9: lab_ospf has version(s) 1." in no_version
    assert no_version_shown == "There is no lab_ospf@4: lab_ospf has version(s) 1."
    assert versions == [1] and "router ospf" not in lab.device("R1").running_config()


async def test_two_threads_saving_one_name_at_once_get_versions_one_and_two(
    tmp_path: Path, lab: Lab
) -> None:
    chat = RecordingAdapter()
    async with running_bot(tmp_path, lab, chat) as bot:
        for thread, request in (
            (THREAD, "apply ospf to R1"),
            (OTHER, "apply ntp to R1 servers=10.0.0.1"),
        ):
            await bot.service.handle(ask(request, thread=thread))
            await bot.service.handle(click(chat, "bob", thread=thread))
        await asyncio.gather(
            bot.service.handle(ask("save as shared", "bob")),
            bot.service.handle(ask("save as shared", "carol", thread=OTHER)),
        )
        history = await store_of(bot).history("shared")
    replies = [t for t in chat.texts() if t.startswith("Saved shared@")]
    assert sorted(t[: len("Saved shared@1")] for t in replies) == [
        "Saved shared@1",
        "Saved shared@2",
    ]
    assert sorted(t.saved_by_name for t in history) == ["bob", "carol"]
    assert {json.dumps(dict(t.templates), sort_keys=True) for t in history}.__len__() == 2


async def test_a_channel_pin_chooses_the_version_and_the_gate_says_a_newer_one_exists(
    tmp_path: Path, lab: Lab
) -> None:
    chat = RecordingAdapter()
    async with running_bot(tmp_path, lab, chat) as bot:
        store = store_of(bot)
        await store.save(ospf_draft())
        await store.save(ospf_draft("log-adjacency-changes detail"))
        await bot.service.handle(ask("templates pin lab_ospf@1"))
        pinned = chat.texts()[-1]
        await bot.service.handle(ask("apply lab_ospf to R1", thread=OTHER))
        gate = chat.last_gate()[1]
    assert pinned.startswith("In this channel `lab_ospf` now means lab_ospf@1")
    assert "Uses lab_ospf@1" in gate.text and "A newer version exists (lab_ospf@2)" in gate.text


async def test_only_approvers_may_save_or_pin_templates(tmp_path: Path, lab: Lab) -> None:
    chat = RecordingAdapter()
    async with running_bot(tmp_path, lab, chat, approvers=["console:bob"]) as bot:
        store = store_of(bot)
        await store.save(ospf_draft())
        await bot.service.handle(ask("apply ospf to R1", "alice"))
        await bot.service.handle(click(chat, "bob"))
        await bot.service.handle(ask("save as mallory_ospf", "mallory"))
        await bot.service.handle(ask("templates pin lab_ospf@1", "mallory"))
        pins = await store.pins(f"{THREAD.platform}:{THREAD.channel}")
        history = await store.history("mallory_ospf")
        refusals = [e for e in await bot.audit.entries() if e.kind == "refusal"]
    assert len([t for t in chat.said_to("console:mallory") if "only approvers" in t]) == 2
    assert not pins and not history
    assert [r.actor_name for r in refusals] == ["mallory", "mallory"]


async def test_the_template_gate_shows_only_what_the_labs_families_use(
    tmp_path: Path, lab: Lab
) -> None:
    chat = RecordingAdapter()
    async with running_bot(tmp_path, lab, chat) as bot:
        await bot.service.handle(ask("apply ospf to R1,R2 area=0"))
        template_gate = chat.last_gate()[1]
        await approve_all(bot, chat)
        pushed = lab.device("R1").running_config()
    library = load_catalog().get("ospf").sections
    assert "set protocols ospf *" in library and "ospf * / area * / network *" in library
    shown = {block.title: block.text for block in template_gate.blocks}
    touched = shown["May touch only"].splitlines()
    assert "router ospf * / network *" in touched and "interface * / ip ospf *" in touched
    assert not [s for s in touched if s.startswith(("set ", "ospf "))]  # Junos, VRP
    assert [title for title in shown if title.startswith("Template (")] == ["Template (cisco_ios)"]
    assert "router ospf 1" in pushed  # the narrower sections still admit every line
