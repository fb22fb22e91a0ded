"""The lab's picture, drawn by Pillow into a PNG (no display, no global state: safe in a worker
thread): the force-directed layout spread until every label finds a free spot, devices shaped by
kind and coloured by their part in the change, links coloured by their sessions and labelled with
both interface names and the subnet, the legend of what this picture uses, all cropped to what
is drawn. The picture says where it drew every device, link and label (its tests read them)."""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageFont

from bot.topology.labels import (
    Box,
    Label,
    Point,
    Wanted,
    device_spots,
    end_spots,
    middle_spots,
    place,
)
from bot.topology.layout import spring_layout
from bot.topology.legend import draw_heading, heading_height
from bot.topology.scene import MAX_DEVICES, LinkState, Role, Scene
from bot.topology.shapes import COLOURS, LIGHT, LINK_COLOURS, RADIUS, draw_shape, shape_box

__all__ = ["Picture"]

SPACING_PX = 150  # between linked devices at first: two interface names and a subnet fit
FIT_TRIES, GROWTH = 10, 1.12  # spread the layout this much more while labels still collide
MARGIN_PX, MIN_WIDTH_PX = 24, 760
NAME_SIZE, LABEL_SIZE, PAD = 14, 13, 2
INK, LINE_PX = "#1a202c", 4


class TooManyDevices(ValueError):
    """The lab has more devices than one picture can show readably."""


@dataclass(frozen=True)
class DrawnLink:
    a: str
    b: str
    state: LinkState
    ends: tuple[Point, Point]  # pixel centres of its two devices


@dataclass(frozen=True)
class Picture:
    png: bytes
    width: int
    height: int
    nodes: dict[str, tuple[int, int]]  # device -> pixel centre of its shape (from the top left)
    labels: tuple[Label, ...]  # every text drawn on the lab, with its box in pixels
    links: tuple[DrawnLink, ...]
    covering: int  # labels drawn over another label or device (0: none)


def draw_lab(scene: Scene, title: str) -> Picture:
    """The scene drawn and cropped to its content, under its title and legend."""
    if len(scene.devices) > MAX_DEVICES:
        raise TooManyDevices(f"{len(scene.devices)} devices; a picture shows at most {MAX_DEVICES}")
    fonts = _Fonts()
    places, labels, covering = _fitted(scene, fonts)
    boxes = [shape_box(scene.shapes.get(n, "other"), at) for n, at in places.items()]
    left, top, right, bottom = _bounds([*boxes, *(label.box for label in labels)])
    width = max(round(right - left) + 2 * MARGIN_PX, MIN_WIDTH_PX)
    shift_x = (width - (right - left)) / 2 - left
    image = Image.new("RGB", (width, 1), "white")
    head = heading_height(ImageDraw.Draw(image), scene, width)
    shift_y = head + MARGIN_PX - top
    height = round(bottom - top) + head + 2 * MARGIN_PX
    moved = {n: (x + shift_x, y + shift_y) for n, (x, y) in places.items()}
    labels = [_moved(label, shift_x, shift_y) for label in labels]
    image = Image.new("RGB", (width, height), "white")
    canvas = ImageDraw.Draw(image)
    links = _links(canvas, scene, moved)
    for name, at in moved.items():
        draw_shape(canvas, scene.shapes.get(name, "other"), at, COLOURS[_role(scene, name)])
    _texts(canvas, scene, labels, moved, fonts)
    draw_heading(canvas, scene, title, width)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    nodes = {name: (round(x), round(y)) for name, (x, y) in moved.items()}
    return Picture(buffer.getvalue(), width, height, nodes, tuple(labels), links, covering)


class _Fonts:
    """The picture's two fonts (names, link labels) and each text's box in them."""

    def __init__(self) -> None:
        self.name = ImageFont.load_default(size=NAME_SIZE)
        self.label = ImageFont.load_default(size=LABEL_SIZE)
        self._sizes: dict[tuple[str, str], tuple[float, float]] = {}  # measured once per text

    def of(self, label: Label | Wanted) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
        return self.name if label.kind == "device" else self.label

    def size(self, text: str, kind: str) -> tuple[float, float]:
        if (text, kind) not in self._sizes:
            font, height = (self.name, NAME_SIZE) if kind == "device" else (self.label, LABEL_SIZE)
            left, _, right, _ = font.getbbox(text)
            self._sizes[text, kind] = (right - left + 2 * PAD, height + 2 * PAD)
        return self._sizes[text, kind]


def _fitted(scene: Scene, fonts: _Fonts) -> tuple[dict[str, Point], list[Label], int]:
    """The layout at the first spread where no label covers another (else the best tried)."""
    edges = [(link.a, link.b) for link in scene.links]
    unit = spring_layout(scene.devices, edges)
    best: tuple[dict[str, Point], list[Label], int] | None = None
    for attempt in range(FIT_TRIES):
        scale = SPACING_PX * math.sqrt(max(len(scene.devices), 2)) * GROWTH**attempt
        places = {name: (x * scale, (1 - y) * scale) for name, (x, y) in unit.items()}
        shapes = [(shape_box(scene.shapes.get(n, "other"), at), n) for n, at in places.items()]
        labels, covering = place(shapes, _wanted(scene, places, fonts))
        if best is None or covering < best[2]:
            best = (places, labels, covering)
        if covering == 0:
            break
    assert best is not None
    return best


def _wanted(scene: Scene, places: Mapping[str, Point], fonts: _Fonts) -> list[Wanted]:
    """Device names first (they stay by their shape), then subnets, then interface names."""
    wanted = []
    for name in scene.devices:
        size = fonts.size(name, "device")
        wanted.append(Wanted(name, "device", name, size, device_spots(places[name], size, RADIUS)))
    for link in scene.links:
        a, b = places[link.a], places[link.b]
        if link.subnet:
            size = fonts.size(link.subnet, "subnet")
            wanted.append(Wanted(link.subnet, "subnet", "", size, middle_spots(a, b, size)))
    for link in scene.links:
        a, b = places[link.a], places[link.b]
        for text, near, far in ((link.a_interface, a, b), (link.b_interface, b, a)):
            size = fonts.size(text, "interface")
            wanted.append(Wanted(text, "interface", "", size, end_spots(near, far, size, RADIUS)))
    return wanted


def _bounds(boxes: Sequence[Box]) -> Box:
    if not boxes:
        return (0.0, 0.0, 0.0, 0.0)
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def _moved(label: Label, dx: float, dy: float) -> Label:
    left, top, right, bottom = label.box
    box = (left + dx, top + dy, right + dx, bottom + dy)
    return Label(label.text, label.kind, box, label.owner)


def _role(scene: Scene, name: str) -> Role:
    return scene.roles.get(name, "other")


def _links(
    canvas: ImageDraw.ImageDraw, scene: Scene, places: Mapping[str, Point]
) -> tuple[DrawnLink, ...]:
    drawn = []
    for link in scene.links:
        ends = (places[link.a], places[link.b])
        canvas.line([*ends[0], *ends[1]], fill=LINK_COLOURS[link.state], width=LINE_PX)
        drawn.append(DrawnLink(link.a, link.b, link.state, ends))
    return tuple(drawn)


def _texts(
    canvas: ImageDraw.ImageDraw,
    scene: Scene,
    labels: Sequence[Label],
    places: Mapping[str, Point],
    fonts: _Fonts,
) -> None:
    """Each label on white (links run under them), a name inside its shape on the shape's fill."""
    for label in labels:
        left, top, right, bottom = label.box
        centre = ((left + right) / 2, (top + bottom) / 2)
        inside = label.kind == "device" and math.dist(centre, places[label.owner]) < 1
        ink = "white" if inside and _role(scene, label.owner) not in LIGHT else INK
        if not inside:
            canvas.rectangle(label.box, fill="white")
        canvas.text(centre, label.text, fill=ink, font=fonts.of(label), anchor="mm")
