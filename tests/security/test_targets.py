"""Targets fail closed: every hostile or careless device spelling is refused naming the word and
the lab's devices, nothing is read or pushed; words mean what they say ("all routers" is not
SW1); a change to one device reads only that device; the target parser takes linear time."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from adapters.chat import Request, parse_button_value
from base.errors import TargetError
from bot.views.ending import target_problem
from tests.bot.chat import RecordingAdapter, click, person
from tests.security.replay import attacked_bot, attacked_lab, configs, reads, thread
from tests.security.tally import attempt
from workflow.results.targets import select_targets, target_words

SPELLINGS = [
    "apply ospf to ../R1",
    "apply ospf to R1.lab",
    "apply ospf to core-router",
    "apply ospf to R1\nreload",
    "apply ospf to R1\nR2",
    "apply ospf to R1 R9",
    "apply ospf to R1,../R2",
    "apply ospf to X*",
    "apply ospf to Ｒ1",  # fullwidth R
    "apply ospf to R1\u200b",  # zero-width space
    "apply ospf to %2e%2e/R1",
    "apply ospf to R1/../R2",
    "apply ospf to ' OR 1=1 --",
    "apply ospf to firewalls",
    "apply ospf to",
    "configure ospf area 0",
    "apply ospf",
    "apply ospf to R1\tR2",
    "apply ospf to \x1b[2JR1",
]


@pytest.mark.parametrize("text", SPELLINGS, ids=[repr(t)[:40] for t in SPELLINGS])
async def test_an_unknown_or_unparsable_device_is_refused_and_nothing_is_read(
    tmp_path: Path, text: str
) -> None:
    chat = RecordingAdapter()
    async with attacked_lab() as lab, attacked_bot(tmp_path, lab, chat) as bot:
        before, seen = configs(lab), reads(lab)
        await bot.service.handle(Request(thread("t"), person("mallory"), text))
        refused = not any(m.buttons for m in chat.messages()) and configs(lab) == before
        attempt("targets: unknown or unparsable", refused and reads(lab) == seen)
        assert refused, chat.texts()
        assert reads(lab) == seen  # no device was even read
        said = "\n".join(chat.texts())
        assert "which devices?" in said and "R1, R2, SW1" in said, said


NARROWED = ["apply ospf to R1;reload", "apply ospf to R1 or everything", "apply ospf to R1 hm SW1"]


@pytest.mark.parametrize("text", NARROWED)
def test_a_plain_word_after_the_devices_ends_the_list_never_widens_it(text: str) -> None:
    kinds = {
        "R1": ("router", "unknown", ""),
        "R2": ("router", "unknown", ""),
        "SW1": ("switch", "unknown", ""),
    }
    names = select_targets(target_words(text), kinds).names
    attempt("targets: trailing words (narrowed, shown at the gate)", names == ["R1"])
    assert names == ["R1"]


async def test_all_routers_means_routers_and_the_gate_says_why(tmp_path: Path) -> None:
    chat = RecordingAdapter()
    async with attacked_lab() as lab, attacked_bot(tmp_path, lab, chat) as bot:
        await bot.service.handle(Request(thread("t"), person("alice"), "ospf on all routers"))
        gate = chat.last_gate()[1].text
        attempt("targets: words mean what they say", "SW1" not in gate)
        assert "R1, R2 (router: kind in the inventory)." in gate and "SW1" not in gate


async def test_a_change_to_one_device_reads_only_that_device(tmp_path: Path) -> None:
    chat = RecordingAdapter()
    async with attacked_lab(routers=3) as lab, attacked_bot(tmp_path, lab, chat) as bot:
        await bot.service.handle(Request(thread("t"), person("alice"), "apply ospf to R2"))
        assert "R2 (named)" in chat.last_gate()[1].text
        seen = reads(lab)
        attempt("targets: reads only the targets", seen["R1"] == seen["R3"] == seen["SW1"] == 0)
        assert seen["R2"] > 0 and seen["R1"] == seen["R3"] == seen["SW1"] == 0, seen


async def test_more_devices_than_max_targets_wait_for_an_owners_confirmation(
    tmp_path: Path,
) -> None:
    owners = tmp_path / "owners"
    owners.write_text("R*  console:bob\nR3  console:carol\n")  # R3: carol, not bob
    chat = RecordingAdapter()
    t = thread("t")
    async with (
        attacked_lab(routers=3) as lab,
        attacked_bot(tmp_path, lab, chat, max_targets=2, owners=owners) as bot,
    ):
        seen = reads(lab)
        await bot.service.handle(Request(t, person("alice"), "apply ospf to R*"))
        _, gate = chat.last_gate()
        listed = "\n".join(b.text for b in gate.blocks)
        assert "selects *3* devices" in gate.text and "LABBOT_MAX_TARGETS (2)" in gate.text
        assert [b.label for b in gate.buttons] == ["Confirm", "Cancel"]
        assert listed.splitlines() == ["R1 (matches R*)", "R2 (matches R*)", "R3 (matches R*)"]
        for who in ("alice", "mallory"):  # the requester; nobody's owner
            await bot.service.handle(click(chat, who, thread=t))
            refused = chat.last_gate()[1] is gate and reads(lab) == seen
            attempt("targets: over max, confirmed by the wrong person", refused)
            assert refused, chat.said_to(f"console:{who}")
        await bot.service.handle(click(chat, "bob", thread=t))  # owner of R1, R2 only
        owners_missing = chat.last_gate()[1] is gate and reads(lab) == seen
        attempt("targets: over max, confirmed by the wrong person", owners_missing)
        assert owners_missing and "R3" in chat.texts()[-1], chat.texts()[-1]
        await bot.service.handle(click(chat, "carol", thread=t))  # R3's owner: all covered
        template = chat.last_gate()[1].text
        decisions = [e for e in await bot.audit.entries() if e.gate == "targets"]
        interrupt_id, sha256 = parse_button_value(gate.buttons[0].value)
        resolution = await bot.audit.resolution(interrupt_id)
    assert "Step 1 of 2" in template and "R3 (matches R*)" in template
    assert reads(lab)["R3"] > seen["R3"]  # read only after the confirmation
    refusals = {e.actor_name for e in decisions if e.kind == "refusal"}
    assert refusals == {"alice", "mallory"}, decisions
    assert resolution is not None and resolution.gate == "targets"
    assert resolution.actor_name == "carol" and resolution.content_sha256 == sha256


async def test_more_devices_than_any_change_may_are_refused(tmp_path: Path) -> None:
    chat = RecordingAdapter()
    settings = {"max_targets": 1, "max_targets_confirmed": 2}
    async with attacked_lab(routers=3) as lab, attacked_bot(tmp_path, lab, chat, **settings) as bot:
        seen = reads(lab)
        await bot.service.handle(Request(thread("t"), person("alice"), "apply ospf to R*"))
        said = "\n".join(chat.texts())
        refused = "LABBOT_MAX_TARGETS_CONFIRMED=2" in said and reads(lab) == seen
        attempt("targets: more than the hard cap", refused and not chat.messages()[-1].buttons)
        assert refused, said


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("set the snmp community to s3cr3t-Comm", []),
        ("set the snmp community to s3cr3t-Comm on R1", ["R1"]),
        ("apply snmp to R1 community s3cr3t-Comm read_only=false", ["R1"]),
        ("configure tacacs key Xyz123 for R1,R2", ["R1", "R2"]),
        ("configure ospf md5 authentication on R1", ["R1"]),
    ],
)
def test_a_secret_value_is_never_read_as_a_device(text: str, words: list[str]) -> None:
    assert target_words(text) == words


def test_the_target_parser_takes_linear_time() -> None:
    """The old pattern looked ahead to the end of the text from every "to": quadratic. Timed in
    this process's CPU time, which other processes on a busy machine do not stretch."""
    kinds = {"R1": ("router", "unknown", "")}
    timings = []
    for size in (20_000, 40_000):
        text = "apply ospf " + "to " * size + "R1"
        started = time.process_time()
        assert select_targets(target_words(text), kinds).names == ["R1"]
        timings.append(time.process_time() - started)
    attempt("targets: long request (1 MB-class)", timings[1] < 1.0)
    assert timings[1] < 1.0  # was minutes with the quadratic look-ahead
    started = time.process_time()
    target_words("key " * 40_000 + 'password "' * 40_000)  # the secret-value rule: linear too
    assert time.process_time() - started < 1.0


def test_a_glob_must_match_and_a_name_must_exist() -> None:
    kinds = {
        "R1": ("router", "unknown", ""),
        "R2": ("router", "unknown", ""),
        "SW1": ("switch", "unknown", ""),
    }
    assert select_targets(["R*"], kinds).names == ["R1", "R2"]
    assert select_targets(["all", "switches"], kinds).names == ["SW1"]
    assert select_targets(["all"], kinds).names == ["R1", "R2", "SW1"]
    for words in (["R3"], ["Z*"], [], ["R1.lab"]):
        with pytest.raises(TargetError) as refused:
            select_targets(words, kinds)
        assert "(lab devices: R1, R2, SW1)" in target_problem(refused.value)
