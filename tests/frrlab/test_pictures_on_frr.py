"""The lab's picture after OSPF on real FRR routers, read back from the PNG the thread carries:
each link labelled with both interface names and its subnet, links green where the adjacency
came Full; on a lab where one link's two ends sit in different subnets, that link red (its
adjacency never comes up) and its label shows both subnets; and the HTML audit report of that
change, opened in headless Chromium, shows the picture with both link colours on screen."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli.audit import write_report
from bot.cli.demo import demo_settings
from bot.runtime.wiring import Runtime
from bot.settings import load_settings
from bot.topology.picture import Picture
from bot.topology.scene import scene_of
from bot.topology.shapes import COLOURS, LINK_COLOURS
from bot.topology.thread_pictures import step_picture
from frrlab import FrrLab
from frrlab.topology import frr_topology_from_dict
from tests.bot.chat import THREAD, RecordingAdapter, ask
from tests.bot.pictures import colours_in, image_of, link_colour, near, rgb
from tests.frrlab.test_chat_changes import bot_on, change, post_checks_within
from tests.support.browser import keep_for_docs, show
from workflow.api import Step

pytestmark = [pytest.mark.frr, pytest.mark.usefixtures("frr_host")]

OSPF = "configure ospf on all routers with hello-interval 1"
# R2-R3 is cabled, but R3's end is numbered in another subnet: OSPF on it never sees R2
MISNUMBERED = {
    "routers": {
        "R1": {"interfaces": {"lo": {"address": "10.255.0.1/32"},
                              "eth0": {"address": "10.0.12.1/30"}}},
        "R2": {"interfaces": {"lo": {"address": "10.255.0.2/32"},
                              "eth0": {"address": "10.0.12.2/30"},
                              "eth1": {"address": "10.0.23.1/30"}}},
        "R3": {"interfaces": {"lo": {"address": "10.255.0.3/32"},
                              "eth0": {"address": "10.0.32.2/30"}}},
    },
    "links": [["R1:eth0", "R2:eth0"], ["R2:eth1", "R3:eth0"]],
}  # fmt: skip


async def drawn(bot: Runtime, change_id: str, posted: bytes) -> Picture:
    """The change's picture as the thread got it, with where each label and link was drawn."""
    step: Step | None = await bot.workflow.last_step(THREAD.key, change_id)
    assert step is not None
    picture = step_picture(step)
    assert picture is not None and picture.png == posted  # the very picture in the thread
    return picture


def labels(picture: Picture) -> set[str]:
    return {label.text for label in picture.labels}


def link_colours(picture: Picture) -> dict[tuple[str, str], tuple[int, int, int]]:
    image = image_of(picture.png)
    return {(link.a, link.b): link_colour(image, picture, link) for link in picture.links}


def device_colour(picture: Picture, device: str, role: str) -> bool:
    x, y = picture.nodes[device]
    return near(image_of(picture.png).getpixel((x, y - 16)), COLOURS[role])  # type: ignore[arg-type,index]


async def test_after_passed_post_checks_every_link_is_green_and_labelled(tmp_path: Path) -> None:
    chat = RecordingAdapter()
    async with FrrLab.start() as lab, bot_on(lab, tmp_path, chat) as bot:
        change_id = await change(bot, chat, OSPF)
        result = chat.messages()[-1]
        assert "pushed: ✓ 3 ✗ 0 of 3" in result.text, chat.texts()
        posted = [f for m in chat.messages() for f in m.files if f.image][-1]  # the result's
        picture = await drawn(bot, change_id, posted.data)
    assert {"eth0", "eth1", "10.0.12.0/30", "10.0.23.0/30", "R1", "R2", "R3"} <= labels(picture)
    assert link_colours(picture) == {
        ("R1", "R2"): rgb(LINK_COLOURS["up"]),
        ("R2", "R3"): rgb(LINK_COLOURS["up"]),
    }
    assert all(device_colour(picture, name, "passed") for name in ("R1", "R2", "R3"))


async def test_a_link_whose_adjacency_stays_down_is_red_in_the_gate_and_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # R1-R2 comes Full after the 4 s DR wait of 1 s hellos: 20 s leaves room for a loaded host
    post_checks_within(monkeypatch, "ospf", 20)
    chat = RecordingAdapter()
    topology = frr_topology_from_dict(MISNUMBERED)
    async with FrrLab.start(topology) as lab, bot_on(lab, tmp_path, chat) as bot:
        change_id = await change(bot, chat, OSPF)
        _, gate = chat.last_gate()
        assert f"*Post-checks failed* for change {change_id}" in gate.text, chat.texts()
        (posted,) = gate.files
        picture = await drawn(bot, change_id, posted.data)
        (tmp_path / "topology.png").write_bytes(picture.png)
        keep_for_docs(tmp_path / "topology.png", "topology.png")  # docs/using.md shows it
        settings = demo_settings(load_settings(data_dir=tmp_path))
        page = tmp_path / "report.html"
        await write_report(settings, page, None, change_id)
    assert {"eth0", "eth1", "10.0.12.0/30", "10.0.23.0/30 != 10.0.32.0/30"} <= labels(picture)
    assert link_colours(picture) == {
        ("R1", "R2"): rgb(LINK_COLOURS["up"]),  # R1 and R2 are Full with each other
        ("R2", "R3"): rgb(LINK_COLOURS["down"]),
    }
    assert device_colour(picture, "R3", "postcheck_failed")
    shown = show(page, "audit-report-frr")
    on_screen = colours_in(shown.screenshot.read_bytes())
    assert rgb(LINK_COLOURS["down"]) in on_screen and rgb(LINK_COLOURS["up"]) in on_screen
    assert rgb(COLOURS["postcheck_failed"]) in on_screen


async def test_the_topology_command_shows_each_adjacency_once_ospf_is_up(tmp_path: Path) -> None:
    """`topology` on demand reads each router's OSPF neighbours: no session before the change,
    every link's adjacency up (both ends Full) after it."""
    chat = RecordingAdapter()
    async with FrrLab.start() as lab, bot_on(lab, tmp_path, chat) as bot:
        assert bot.pictures is not None
        _, before = await bot.pictures.read_running()
        change_id = await change(bot, chat, OSPF)
        assert "pushed: ✓ 3 ✗ 0 of 3" in chat.messages()[-1].text, chat.texts()
        layout, running = await bot.pictures.read_running()
        await bot.service.handle(ask("topology", "alice", THREAD))
    assert change_id and before == []
    assert {(s.device, s.peer) for s in running if s.up} == {
        ("R1", "R2"), ("R2", "R1"), ("R2", "R3"), ("R3", "R2"),
    }  # fmt: skip
    links = {(link.a, link.b): link.state for link in scene_of(layout, running=running).links}
    assert links == {("R1", "R2"): "up", ("R2", "R3"): "up"}
    assert chat.messages()[-1].files and chat.messages()[-1].files[0].image  # the picture
