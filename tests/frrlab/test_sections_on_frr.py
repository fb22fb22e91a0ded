"""Sections by effect on real FRR. vtysh runs a command its node does not know in the first
parent node that knows it: ` ip route …` typed under `router ospf` lands in global
configuration. A template with lenient sections (a global command declared as a child of
`router ospf`, as an older release allowed) is caught on its twin — a real FRR router of its
own — before any gate; pushed anyway (its twin could not answer in time, as with a gate opened
by an older release, which had no twin), the router's own before/after configuration reports
the line where it landed at once and offers the rollback, which restores the router."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.chat import Request
from frrlab import FrrLab
from storage.template_store import TemplateDraft
from tests.bot.chat import THREAD, RecordingAdapter, click, person
from tests.frrlab.test_chat_changes import bot_on, change
from tests.security.tally import attempt

pytestmark = [
    pytest.mark.frr,
    pytest.mark.usefixtures("frr_host"),
    pytest.mark.xdist_group("frr-lab"),
]

SOURCE = (
    "router ospf\n ospf router-id {{ router_id }}\n"
    "{% if extra %} ip route 10.99.0.0/24 Null0\n{% endif %}"
)


def lenient(extra_in_example: bool) -> TemplateDraft:
    return TemplateDraft(
        name="old_ospf",
        description="OSPF router id (saved by an older release)",
        templates={"frr": SOURCE},
        params_schema={"router_id": {"type": "ipv4"}, "extra": {"type": "bool", "default": False}},
        example_params={"router_id": "10.255.255.1", "extra": extra_in_example},
        saved_by_id="console:dana",
        saved_by_name="dana",
        sections=("router ospf / ospf router-id *", "router ospf / ip route *"),
    )


REQUEST = "apply old_ospf to R1 router_id=10.255.255.1 extra=true"


@pytest.mark.parametrize(("where", "in_example"), [("example", True), ("params", False)])
async def test_a_line_landing_outside_is_caught_on_the_twin_before_the_gate(
    tmp_path: Path, where: str, in_example: bool
) -> None:
    """In the example: the template gate is never shown; behind a parameter: the params gate
    is never shown. Either way R1 is untouched and the thread names the line."""
    chat = RecordingAdapter()
    async with FrrLab.start() as lab, bot_on(lab, tmp_path, chat) as bot:
        assert bot.templates is not None
        await bot.templates.save(lenient(in_example))
        before = lab.vtysh("R1", "show running-config")
        await bot.service.handle(Request(THREAD, person("alice"), REQUEST))
        if not in_example:
            assert "Step 1 of 2" in chat.last_gate()[1].text, chat.texts()
            await bot.service.handle(click(chat, "bob", thread=THREAD))
        after = lab.vtysh("R1", "show running-config")
    said = "\n".join(chat.texts())
    caught = "Step 2 of 2" not in said and after == before
    attempt(f"sections: FRR line landing outside, caught on the twin ({where})", caught)
    assert caught, said
    assert "`ip route 10.99.0.0/24 Null0` lands outside the sections" in said, said


async def test_pushed_anyway_it_is_reported_at_once_and_rolled_back(tmp_path: Path) -> None:
    chat = RecordingAdapter()
    async with FrrLab.start() as lab, bot_on(lab, tmp_path, chat, twin_seconds=0.001) as bot:
        assert bot.templates is not None
        await bot.templates.save(lenient(True))
        before = lab.vtysh("R1", "show running-config")
        change_id = await change(bot, chat, REQUEST)
        landed = lab.vtysh("R1", "show running-config")
        _, gate = chat.last_gate()
        shown = {block.title: block.text for block in gate.blocks}
        reported = "Lines landed outside the template's sections" in gate.text
        attempt("sections: landed outside on real FRR, reported after the push", reported)
        assert reported and change_id in gate.text, chat.texts()
        assert shown["R1: outside the sections"] == "ip route 10.99.0.0/24 Null0"  # global now
        assert "\nip route 10.99.0.0/24 Null0\n" in landed
        assert "no ip route 10.99.0.0/24 Null0" in shown["R1 rollback lines"]
        assert [b.label for b in gate.buttons] == ["Roll back", "Keep the change"]
        await bot.service.handle(click(chat, "carol"))
        after = lab.vtysh("R1", "show running-config")
    assert after == before
    said = "\n".join(chat.texts())
    assert "Not tried on a copy before the push: R1" in said, said
    assert "lines landed outside the sections (R1: ip route 10.99.0.0/24 Null0)" in said, said
    assert "rolled back as approved by carol" in said
