"""The lab's picture: the force-directed layout drawn by Pillow, checked by its size, the
place of every device's label and the colour of the pixels there, on 4, 20 and 100 devices; and
in the thread, at the params gate and after the push, through the real service and lab (and a
gate whose picture cannot be drawn, posted without it)."""

from __future__ import annotations

import io
import itertools
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import yaml
from PIL import Image

from adapters.chat import FileAttachment
from bot import messages
from bot.demo import DEMO_CREDENTIALS, demo_settings
from bot.settings import load_settings
from bot.topology_picture import COLOURS, MAX_DEVICES, TooManyDevices, draw_lab
from bot.topology_view import LabPictures
from bot.wiring import open_runtime
from labsim import Lab, demo_topology
from tests.bot.chat import RecordingAdapter, ask, click
from workflow.model import Device, Link, UnusableNode


def chain(count: int) -> tuple[list[str], list[Link]]:
    names = [f"R{n}" for n in range(1, count + 1)]
    links: list[Link] = [
        {"a_device": a, "a_interface": "e0/0", "b_device": b, "b_interface": "e0/1"}
        for a, b in itertools.pairwise(names)
    ]
    return names, links


def rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))  # type: ignore[return-value]


def near(pixel: tuple[int, ...], colour: str) -> bool:
    return all(abs(a - b) <= 12 for a, b in zip(pixel[:3], rgb(colour), strict=True))


def colours_in(png: bytes) -> set[tuple[int, int, int]]:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    return {pixel for _, pixel in image.getcolors(maxcolors=1 << 20) or []}


@pytest.mark.parametrize("count", [4, 20, 100])
def test_every_targeted_device_is_drawn_and_highlighted(count: int) -> None:
    names, links = chain(count)
    targets = names[::3]
    picture = draw_lab(names, links, dict.fromkeys(targets, "target"), f"chg-1: {count}")
    image = Image.open(io.BytesIO(picture.png)).convert("RGB")
    assert image.size == (picture.width, picture.height) and picture.width == 1200
    assert len(picture.png) < 400_000  # small enough for a phone on mobile data
    assert set(picture.labels) == set(names)  # every device has its label
    for name in names:
        x, y = picture.labels[name]
        assert 0 < x < picture.width and 0 < y < picture.height, name
    # pixels around each label's centre (the text is dark): the node's colour
    others = [n for n in names if n not in targets]
    highlighted = [n for n in targets if _node_colour(image, picture.labels[n], "target")]
    greyed = [n for n in others if _node_colour(image, picture.labels[n], "other")]
    assert len(highlighted) >= 0.9 * len(targets)  # a neighbour's label may cover a few
    assert len(greyed) >= 0.9 * len(others)


def _node_colour(image: Image.Image, at: tuple[int, int], role: str) -> bool:
    x, y = at
    around = [image.getpixel((x + dx, y + dy)) for dx in (-7, 7) for dy in (-6, 6)]
    return any(near(p, COLOURS[role]) for p in around)  # type: ignore[arg-type]


def test_a_lab_too_big_to_read_is_refused() -> None:
    names, links = chain(MAX_DEVICES + 1)
    with pytest.raises(TooManyDevices):
        draw_lab(names, links, {}, "too big")


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
    at_gate, after_push, on_demand = pictures_of(chat)
    assert gate_picture == [at_gate] and at_gate.mime == "image/png"
    assert chat.last_gate()[1].files == (at_gate,)  # on the params gate's own message
    gate_colours, push_colours = colours_in(at_gate.data), colours_in(after_push.data)
    assert rgb(COLOURS["target"]) in gate_colours and rgb(COLOURS["other"]) in gate_colours
    assert rgb(COLOURS["pushed"]) in push_colours and rgb(COLOURS["target"]) not in push_colours
    assert rgb(COLOURS["failed"]) not in push_colours
    assert "The lab: 4 device(s)" in on_demand.alt  # R1-R3 and SW1
    assert rgb(COLOURS["target"]) not in colours_in(on_demand.data)


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
