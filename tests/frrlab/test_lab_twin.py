"""Before Execute, the previewed lines run on a twin of the whole lab (real FRR routers of its
own): the gate says what the network did there — or what failed — and the twin is gone
afterwards, also after an error inside it or its owner's `kill -9`. The real lab is untouched
until Execute, and Execute pushes exactly the lines shown."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from bot.runtime.wiring import Runtime
from frrlab import FrrLab, netns
from frrlab.lab_twin import TWIN_PREFIX, FrrLabTwins
from frrlab.sweep import RUN_FILE
from tests.bot.chat import THREAD, RecordingAdapter, ask, click
from tests.frrlab.test_chat_changes import bot_on, post_checks_within
from workflow.library.planner import LibraryPlanner
from workflow.model import ParamsProposal, PlanRequest, TemplateProposal

pytestmark = [
    pytest.mark.frr,
    pytest.mark.usefixtures("frr_host"),
    pytest.mark.xdist_group("frr-lab"),
]

OSPF = "configure ospf on all routers with hello-interval 1"
CHAIN_OF_TEN = ", ".join(f"R{n}–R{n + 1}" for n in range(1, 10))


def twin_leftovers() -> list[str]:
    """Namespaces, folders and processes of lab twins left on this host: this process's, or
    no live process's. Twins that other test runs on the shared host are running now are not
    counted (their run file names a live owner); what shows in one look only (a twin starting
    or ending elsewhere) is not either: a leftover is still there a moment later."""
    first = _leftovers()
    if not first:
        return []
    time.sleep(1.0)
    return [found for found in _leftovers() if found in first]


def _leftovers() -> list[str]:
    others = _running_elsewhere()
    found = [n for n in netns.with_prefix(TWIN_PREFIX) if not _of(n, others)]
    found += [
        str(path)
        for path in Path(tempfile.gettempdir()).glob(f"{TWIN_PREFIX}-*")
        if not _of(path.name, others)
    ]
    for proc in Path("/proc").iterdir():
        try:
            if not proc.name.isdigit() or int(proc.name) == os.getpid():
                continue
            command = (proc / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if TWIN_PREFIX in command and not _of(command, others):
            found.append(f"process {proc.name}")
    return found


def _running_elsewhere() -> set[str]:
    """The twins (their name prefixes) whose owner is another process still alive."""
    running = set()
    for run_file in Path(tempfile.gettempdir()).glob(f"{TWIN_PREFIX}-*/{RUN_FILE}"):
        try:
            record = json.loads(run_file.read_text())
            owner = int(record["owner"])
            os.kill(owner, 0)
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if owner != os.getpid():
            running.add(str(record["prefix"]))
    return running


def _of(text: str, prefixes: set[str]) -> bool:
    return any(f"{prefix}-" in text for prefix in prefixes)


def params_gate_text(chat: RecordingAdapter) -> str:
    _, gate = chat.last_gate()
    assert "Step 2 of 2" in gate.text, chat.texts()
    return gate.text + "\n" + "\n".join(f"{b.title}\n{b.text}" for b in gate.blocks)


class AreaOneOnR3(LibraryPlanner):
    """The library's proposal, but R3 in OSPF area 1: its adjacency with R2 cannot form."""

    async def propose_params(
        self, request: PlanRequest, template: TemplateProposal
    ) -> ParamsProposal:
        proposal = await super().propose_params(request, template)
        proposal["device_params"]["R3"]["area"] = "1"
        return proposal


async def test_the_gate_shows_ospf_converging_on_the_twin_and_leaves_nothing(
    tmp_path: Path,
) -> None:
    chat = RecordingAdapter()
    async with FrrLab.start() as lab, bot_on(lab, tmp_path, chat) as bot:
        await bot.service.handle(ask(OSPF, "alice"))
        await bot.service.handle(click(chat, "bob"))
        shown = params_gate_text(chat)
        left = twin_leftovers()
        untouched = "router ospf" not in lab.vtysh("R2", "show running-config")
        await bot.service.handle(click(chat, "bob"))
        pushed = "router ospf" in lab.vtysh("R2", "show running-config")
    assert "🧪 On a twin of the lab (3 routers, " in shown, shown
    assert "OSPF Full on R1–R2, R2–R3" in shown, shown
    assert "R1 learns R2's loopback 10.255.0.2/32" in shown, shown
    assert "R2 on the lab's twin\npost-checks passed after" in shown, shown
    assert left == []
    assert untouched and pushed
    assert "pushed: ✓ 3 ✗ 0 of 3" in chat.texts()[-1], chat.texts()[-1]


@pytest.mark.parametrize(
    ("routers", "request_text", "said"),
    [
        (3, "configure bgp on all routers", "BGP Established on R1–R2, R2–R3; R1 learns "),
        (10, "configure ospf on all routers fast=true", f"OSPF Full on {CHAIN_OF_TEN};"),
        (10, "configure bgp on all routers", f"BGP Established on {CHAIN_OF_TEN};"),
    ],
)
async def test_the_gate_shows_the_twins_answer_for_bgp_and_for_ten_routers(
    tmp_path: Path, routers: int, request_text: str, said: str
) -> None:
    chat = RecordingAdapter()
    async with FrrLab.start(routers) as lab, bot_on(lab, tmp_path, chat) as bot:
        before = {r: lab.vtysh(r, "show running-config") for r in lab.routers}
        await bot.service.handle(ask(request_text, "alice"))
        await bot.service.handle(click(chat, "bob"))
        shown = params_gate_text(chat)
        after = {r: lab.vtysh(r, "show running-config") for r in lab.routers}
    assert f"🧪 On a twin of the lab ({routers} routers, " in shown, shown
    assert said in shown, shown
    assert after == before  # the twin changed nothing on the lab
    assert twin_leftovers() == []


class As65099OnR3(LibraryPlanner):
    """The library's proposal, but R3 in AS 65099 while R2 expects 65003."""

    async def propose_params(
        self, request: PlanRequest, template: TemplateProposal
    ) -> ParamsProposal:
        proposal = await super().propose_params(request, template)
        proposal["device_params"]["R3"]["asn"] = 65099
        return proposal


async def test_a_mismatched_as_fails_on_the_twin_and_execute_pushes_it_as_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    post_checks_within(monkeypatch, "bgp", 10)
    chat = RecordingAdapter()
    async with (
        FrrLab.start() as lab,
        bot_on(lab, tmp_path, chat, planner=As65099OnR3()) as bot,
    ):
        await bot.service.handle(ask("configure bgp on all routers", "alice"))
        await bot.service.handle(click(chat, "bob"))
        shown = params_gate_text(chat)
        left = twin_leftovers()
        previewed, pushed = await execute_and_compare(bot, chat, lab)  # Execute anyway
    assert "⚠️ On a twin of the lab (3 routers, " in shown, shown
    # read on the twin's routers: R2's neighbour 10.0.23.2 is remote-as 65003, R3 is AS 65099
    # (and not R3's "Bad Peer AS" NOTIFICATION besides: R2's expectation says why)
    said = r"R2–R3 stays \w+ \(BGP\): R2 expects AS 65003, R3 is AS 65099; "
    assert re.search(said, shown), shown
    assert "router bgp 65099" in shown
    assert left == []
    assert pushed == previewed and "router bgp 65099" in pushed["R3"], (pushed, previewed)


async def test_a_mismatched_area_fails_on_the_twin_and_execute_pushes_it_as_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    post_checks_within(monkeypatch, "ospf", 20)
    chat = RecordingAdapter()
    async with (
        FrrLab.start() as lab,
        bot_on(lab, tmp_path, chat, planner=AreaOneOnR3()) as bot,
    ):
        await bot.service.handle(ask(OSPF, "alice"))
        await bot.service.handle(click(chat, "bob"))
        shown = params_gate_text(chat)
        left = twin_leftovers()
        previewed, pushed = await execute_and_compare(bot, chat, lab)  # Execute anyway
        r3 = lab.vtysh("R3", "show running-config")
    assert "⚠️ On a twin of the lab (3 routers, " in shown, shown
    # read on the twin's routers: R2's eth1 is in area 0.0.0.0, R3's eth0 in 0.0.0.1
    assert "R2–R3 never meets (OSPF): area 0 on R2, area 1 on R3" in shown, shown
    assert "R1 lacks 10.255.0.3/32" in shown and "R1 lacks 10.255.0.2/32" not in shown, shown
    assert "Execute pushes exactly the lines shown" in shown
    assert " network 10.0.23.0/30 area 1" in shown and " network 10.0.23.0/30 area 1" in r3
    assert pushed == previewed and "network 10.0.23.0/30 area 1" in pushed["R3"], pushed
    assert left == []


async def execute_and_compare(
    bot: Runtime, chat: RecordingAdapter, lab: FrrLab
) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """bob clicks Execute: per router the lines the params gate previewed, and the lines typed
    in configuration mode on its console during the push (both without indentation)."""
    before = {router: len(lab.console_history(router)) for router in lab.routers}
    await bot.service.handle(click(chat, "bob"))
    found = await bot.audit.latest_change_for_thread(THREAD.key)
    assert found is not None
    previews = await bot.workflow.previews_of(THREAD.key, str(found.change_id))
    previewed = {name: [line.strip() for line in p["lines"]] for name, p in previews.items()}
    pushed = {
        router: configured(lab.console_history(router)[count:])
        for router, count in before.items()
        if router in previewed
    }
    return previewed, pushed


def configured(history: list[str]) -> list[str]:
    """The lines typed between `configure terminal` and `end`, in order."""
    lines, inside = [], False
    for typed in (line.strip() for line in history):
        if typed in ("configure terminal", "end"):
            inside = typed == "configure terminal"
        elif inside:
            lines.append(typed)
    return lines


def test_an_error_inside_the_twin_still_ends_it() -> None:
    with pytest.raises(RuntimeError), FrrLabTwins().open(*one_router()) as twin:
        assert "hostname R1" in twin.read("R1", "show running-config")
        raise RuntimeError("the rehearsal broke")
    assert twin_leftovers() == []


def test_the_twin_of_a_killed_owner_is_removed_by_the_next_twin() -> None:
    owner = subprocess.Popen(
        [sys.executable, "-c", KILLED_OWNER],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])},
    )
    assert owner.stdout is not None and owner.stdout.readline().strip() == "up"
    os.kill(owner.pid, signal.SIGKILL)
    owner.wait()
    assert twin_leftovers() != []  # what the killed owner left
    with FrrLabTwins().open(*one_router()):
        pass
    assert twin_leftovers() == []


def one_router() -> tuple[
    dict[str, list[tuple[str, str | None]]], dict[str, str], list[tuple[str, str, str, str]]
]:
    return {"R1": [("lo", "10.255.0.1/32")]}, {"R1": "hostname R1\n"}, []


KILLED_OWNER = """
import time
from frrlab.lab_twin import FrrLabTwins
with FrrLabTwins().open({"R1": [("lo", "10.255.0.1/32")]}, {}, []):
    print("up", flush=True)
    time.sleep(600)
"""


async def test_a_lab_larger_than_the_setting_says_at_the_gate_why_there_is_no_twin(
    tmp_path: Path,
) -> None:
    chat = RecordingAdapter()
    async with FrrLab.start() as lab, bot_on(lab, tmp_path, chat, lab_twin_routers=2) as bot:
        await bot.service.handle(ask(OSPF, "alice"))
        await bot.service.handle(click(chat, "bob"))
        shown = params_gate_text(chat)
    said = "ℹ️ No twin of the lab for this change: the lab has 3 routers, a twin at most 2"
    assert f"{said} (LABBOT_LAB_TWIN_ROUTERS)." in shown, shown
    assert "on the lab's twin" not in shown


async def test_after_the_push_the_thread_says_where_the_lab_and_its_twin_disagree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R3's link goes down after the preview (no configuration changes, so the push goes
    ahead): OSPF converged on the twin, but not on the lab."""
    post_checks_within(monkeypatch, "ospf", 10)
    chat = RecordingAdapter()
    async with FrrLab.start() as lab, bot_on(lab, tmp_path, chat) as bot:
        await bot.service.handle(ask("configure ospf on all routers fast=true", "alice"))
        await bot.service.handle(click(chat, "bob"))
        shown = params_gate_text(chat)
        down = ["ip", "-n", lab.namespace("R3"), "link", "set", "eth0", "down"]
        await asyncio.to_thread(subprocess.run, down, check=True)
        await bot.service.handle(click(chat, "bob"))
    _, gate = chat.last_gate()
    assert "🧪 On a twin of the lab (3 routers, " in shown, shown
    assert "*Post-checks failed*" in gate.text, chat.texts()
    assert (
        "⚠️ The lab and its twin disagree: R1 failed its post-checks, which passed on the twin; "
        "R2 failed its post-checks, which passed on the twin; R3 failed"
    ) in gate.text, gate.text
