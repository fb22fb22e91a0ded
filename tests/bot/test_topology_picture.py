"""The lab's picture: every device and link labelled (interface names at both ends, the subnet),
read back from the PNG with the colour of the pixels there, no label over another on up to 100
devices, shapes by kind, links by session state, cropped to what is drawn; and in the thread, at
the params gate and after the push, through the real service and lab (and a gate whose picture
cannot be drawn, posted without it)."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import yaml
from PIL import Image

from adapters.chat import FileAttachment
from bot import messages
from bot.cli.demo import DEMO_CREDENTIALS, demo_settings
from bot.runtime.wiring import open_runtime
from bot.settings import load_settings
from bot.topology.picture import Picture, TooManyDevices, draw_lab
from bot.topology.scene import MAX_DEVICES, Scene, SceneLink, scene_of
from bot.topology.shapes import COLOURS, LINK_COLOURS, RADIUS
from bot.topology.thread_pictures import LabPictures, draw_scene
from labsim import Lab, demo_topology
from tests.bot.chat import RecordingAdapter, ask, click
from tests.bot.pictures import (
    colours_in,
    covering_pairs,
    image_of,
    inked,
    link_colour,
    near,
    rgb,
)
from workflow.api import LabLayout
from workflow.model import Device, Link, UnusableNode


def tree_lab(count: int, kinds: dict[str, str] | None = None) -> LabLayout:
    """`count` routers linked as a random tree plus a fifth as many links closing loops; each
    link a /30 with eth interfaces numbered per device."""
    chosen = random.Random(count)
    names = [f"R{n}" for n in range(1, count + 1)]
    pairs = [(names[i], names[chosen.randrange(i)]) for i in range(1, count)]
    pairs += [tuple(chosen.sample(names, 2)) for _ in range(count // 5)] if count > 2 else []
    ports = dict.fromkeys(names, 0)
    links: list[Link] = []
    addresses: dict[str, dict[str, str]] = {name: {} for name in names}
    for index, (a, b) in enumerate(pairs):
        a_if, b_if = f"eth{ports[a]}", f"eth{ports[b]}"
        ports[a], ports[b] = ports[a] + 1, ports[b] + 1
        links.append({"a_device": a, "a_interface": a_if, "b_device": b, "b_interface": b_if})
        addresses[a][a_if] = f"10.{index // 64}.{index % 64 * 4}.1/30"
        addresses[b][b_if] = f"10.{index // 64}.{index % 64 * 4}.2/30"
    kinds = kinds or dict.fromkeys(names, "router")
    return LabLayout(tuple(names), tuple(links), kinds, addresses)


@pytest.mark.parametrize("count", [4, 20, 100])
def test_every_device_and_link_end_is_labelled_and_no_label_covers_another(count: int) -> None:
    lab = tree_lab(count)
    targets = lab.devices[::3]
    scene = scene_of(lab, dict.fromkeys(targets, "target"))
    picture = draw_lab(scene, f"chg-1: {count}")
    image = image_of(picture.png)
    assert image.size == (picture.width, picture.height)
    texts = {(label.kind, label.text) for label in picture.labels}
    assert {text for kind, text in texts if kind == "device"} == set(lab.devices)
    for link in lab.links:  # both interface names, near their own end, and the subnet
        subnet = lab.addresses[link["a_device"]][link["a_interface"]].replace(".1/30", ".0/30")
        assert ("subnet", subnet) in texts
        a, b = link["a_device"], link["b_device"]
        assert _labelled_near(picture, link["a_interface"], a, b), link
        assert _labelled_near(picture, link["b_interface"], b, a), link
    # read back from the PNG: every label's box holds text, each device its colour
    assert all(inked(image, label.box) or label.kind == "device" for label in picture.labels)
    assert covering_pairs(picture, scene) == []  # measured: no label over another or a device
    assert picture.covering == 0
    for name in lab.devices:
        x, y = picture.nodes[name]
        role = "target" if name in targets else "other"
        assert near(image.getpixel((x, y - RADIUS + 4)), COLOURS[role]), name  # type: ignore[arg-type]
    assert len(picture.png) < 600_000 and picture.width < 3600  # a phone on mobile data
    assert all(label.box[3] - label.box[1] >= 15 for label in picture.labels)  # 13 px text+


def _labelled_near(picture: Picture, text: str, end: str, other: str) -> bool:
    """An interface label `text` beside the link from `end` to `other`, in `end`'s half."""
    (ax, ay), (bx, by) = picture.nodes[end], picture.nodes[other]
    length = math.dist((ax, ay), (bx, by))
    for label in picture.labels:
        if label.kind == "interface" and label.text == text:
            x, y = (label.box[0] + label.box[2]) / 2, (label.box[1] + label.box[3]) / 2
            along = ((x - ax) * (bx - ax) + (y - ay) * (by - ay)) / length
            beside = abs((x - ax) * (by - ay) - (y - ay) * (bx - ax)) / length
            if 0 < along < length / 2 and beside < 50:
                return True
    return False


@pytest.mark.parametrize("count", [2, 6, 30])
def test_the_picture_is_cropped_to_what_is_drawn(count: int) -> None:
    """A chain lies long and thin: the picture is as wide and as high as the lab, no empty half
    below or beside it."""
    names = [f"R{n}" for n in range(1, count + 1)]
    links = tuple(SceneLink(a, b, "eth1", "eth0", "") for a, b in itertools.pairwise(names))
    picture = draw_lab(Scene(tuple(names), links), "a chain")
    image = image_of(picture.png)
    heading = min(y for _, y in picture.nodes.values()) - 2 * RADIUS
    lab = image.crop((0, heading, picture.width, picture.height))
    for half in _halves(lab):
        assert half.convert("L").getextrema()[0] < 250, "an empty half"
    ink = _ink_box(lab)
    assert (ink[0] < 60 and ink[2] > lab.width - 60) or lab.width == 760  # narrow: the legend
    assert ink[3] > lab.height - 60


def _halves(image: Image.Image) -> list[Image.Image]:
    w, h = image.size
    return [image.crop(box) for box in ((0, 0, w // 2, h), (w // 2, 0, w, h),
                                        (0, 0, w, h // 2), (0, h // 2, w, h))]  # fmt: skip


def _ink_box(image: Image.Image) -> tuple[int, int, int, int]:
    from PIL import ImageOps

    box = ImageOps.invert(image).getbbox()
    assert box is not None
    return box


def test_devices_are_shaped_by_kind() -> None:
    """A router round, a switch square, a host wide: the shape's corner and side tell."""
    kinds = {"R1": "router", "R2": "switch", "R3": "host", "R4": ""}
    lab = tree_lab(4, kinds)
    picture = draw_lab(scene_of(lab, dict.fromkeys(kinds, "target")), "kinds")
    image = image_of(picture.png)

    def filled(name: str, dx: float, dy: float) -> bool:
        x, y = picture.nodes[name]
        return near(image.getpixel((round(x + dx), round(y + dy))), COLOURS["target"])  # type: ignore[arg-type]

    corner = RADIUS - 3
    assert not filled("R1", corner, corner) and filled("R2", corner, corner)  # circle, square
    assert filled("R3", RADIUS * 1.2, 0) and not filled("R2", RADIUS * 1.2, 0)  # a wide box
    assert not filled("R4", corner, corner) and filled("R4", 0, RADIUS - 3)  # a diamond
    legend = {label.text for label in picture.labels}
    assert "R3" in legend


def test_links_are_coloured_by_their_state_and_the_legend_says_so() -> None:
    names = ("R1", "R2", "R3", "R4")
    links = (
        SceneLink("R1", "R2", "eth0", "eth0", "10.0.12.0/30", "up"),
        SceneLink("R2", "R3", "eth1", "eth0", "10.0.23.0/30", "down"),
        SceneLink("R3", "R4", "eth1", "eth0", "10.0.34.0/30", "unchecked"),
    )
    picture = draw_lab(Scene(names, links), "states")
    image = image_of(picture.png)
    for drawn in picture.links:
        assert link_colour(image, picture, drawn) == rgb(LINK_COLOURS[drawn.state]), drawn
    unchecked = tuple(SceneLink(link.a, link.b, "e0", "e0", "") for link in links)
    before = draw_lab(Scene(names, unchecked), "before the post-checks")
    assert rgb(LINK_COLOURS["down"]) in colours_in(picture.png)
    assert rgb(LINK_COLOURS["up"]) not in colours_in(before.png)  # no session colour before


def test_a_lab_too_big_to_read_is_refused() -> None:
    names = tuple(f"R{n}" for n in range(MAX_DEVICES + 1))
    with pytest.raises(TooManyDevices):
        draw_lab(Scene(names, ()), "too big")


@pytest.fixture
async def lab() -> AsyncIterator[Lab]:
    async with Lab.start(demo_topology(3), **DEMO_CREDENTIALS) as lab:
        yield lab


def pictures_of(chat: RecordingAdapter) -> list[FileAttachment]:
    return [f for m in chat.messages() for f in m.files if f.image]


async def test_the_params_gate_and_the_result_carry_the_lab_picture(
    tmp_path: Path, lab: Lab
) -> None:
    inventory = lab.write_inventory(tmp_path / "hosts.yaml")
    settings = demo_settings(load_settings(data_dir=tmp_path, inventory=inventory))
    chat = RecordingAdapter()
    async with open_runtime(settings, chat) as bot:
        reads = count_inventory_reads(bot.service.reporter.pictures)
        await bot.service.handle(ask("apply ospf to R1,R2"))
        assert pictures_of(chat) == []  # not at the template gate
        await bot.service.handle(click(chat, "bob"))
        gate_picture = pictures_of(chat)
        await bot.service.handle(click(chat, "bob"))
        assert reads == [1]  # the pictures draw the lab as the change read it (one GNS3 call)
        await bot.service.handle(ask("topology", "carol"))
        assert reads == [2]  # on demand: read once more, not twice
        pictures = bot.service.reporter.pictures
        assert pictures is not None
        now = await pictures.read()  # the lab and its facts, as `topology` read them
    at_gate, after_push, on_demand = pictures_of(chat)
    assert gate_picture == [at_gate] and at_gate.mime == "image/png"
    assert chat.last_gate()[1].files == (at_gate,)  # on the params gate's own message
    gate_colours, push_colours = colours_in(at_gate.data), colours_in(after_push.data)
    assert rgb(COLOURS["target"]) in gate_colours and rgb(COLOURS["other"]) in gate_colours
    assert rgb(COLOURS["pushed"]) in push_colours and rgb(COLOURS["target"]) not in push_colours
    assert rgb(COLOURS["failed"]) not in push_colours
    assert "The lab: 4 device(s)" in on_demand.alt  # R1-R3 and SW1
    assert rgb(COLOURS["target"]) not in colours_in(on_demand.data)
    drawn = draw_scene(now, on_demand.alt)
    assert drawn.png == on_demand.data  # the picture posted: its labels read back
    texts = {label.text for label in drawn.labels}
    assert {"Gi0/0", "Gi0/1", "Et1", "10.0.0.0/30", "10.0.0.4/30", "10.0.100.0/24"} <= texts


def count_inventory_reads(pictures: LabPictures | None) -> list[int]:
    """How often the lab's inventory is read (the change's gateway is the pictures' too)."""
    assert pictures is not None
    gateway, reads = pictures.lab, [0]
    read = gateway.devices

    async def counted() -> tuple[list[Device], list[Link], list[UnusableNode]]:
        reads[0] += 1
        return await read()

    gateway.devices = counted  # type: ignore[method-assign]
    return reads


async def test_a_picture_that_cannot_be_drawn_leaves_the_gate_and_says_so(
    tmp_path: Path, lab: Lab
) -> None:
    """A lab too big to draw (the change touches two of its devices): the params gate comes
    with its buttons and no picture, then one line that the picture is missing."""
    inventory = lab.write_inventory(tmp_path / "hosts.yaml")
    hosts = yaml.safe_load(inventory.read_text())
    spare = {**hosts["R3"], "port": 1}  # never contacted: the change reads only its targets
    hosts |= {f"X{n}": spare for n in range(MAX_DEVICES)}
    inventory.write_text(yaml.safe_dump(hosts))
    settings = demo_settings(load_settings(data_dir=tmp_path, inventory=inventory))
    chat = RecordingAdapter()
    async with open_runtime(settings, chat) as bot:
        await bot.service.handle(ask("apply ospf to R1,R2"))
        await bot.service.handle(click(chat, "bob"))
        gate_id, gate = chat.last_gate()
        after_gate = chat.texts()[[mid for mid, _, _ in chat.posts].index(gate_id) + 1 :]
    assert [b.label for b in gate.buttons] == ["Execute", "Modify", "Cancel"]
    assert gate.files == ()
    assert after_gate == [messages.PICTURE_NOT_ATTACHED]
