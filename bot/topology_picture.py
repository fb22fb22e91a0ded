"""A picture of the lab from the inventory's links: a force-directed layout drawn by Pillow into a
PNG (no display, no global state: safe in a worker thread). Each device is coloured by what the
change does to it; the picture says where every label was drawn."""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from PIL import Image, ImageDraw, ImageFont

from bot.topology_layout import Point, spring_layout
from workflow.model import Link

Role = Literal["target", "other", "pushed", "failed", "postcheck_failed"]
COLOURS: dict[Role, str] = {
    "target": "#2b6cb0",  # blue: this change touches it
    "other": "#cbd5e0",  # grey: not part of the change
    "pushed": "#2f855a",  # green
    "failed": "#c53030",  # red
    "postcheck_failed": "#dd6b20",  # orange: pushed, but a post-check failed
}
LEGEND: dict[Role, str] = {
    "target": "changed by this request",
    "other": "not touched",
    "pushed": "pushed",
    "failed": "push failed",
    "postcheck_failed": "post-check failed",
}
MAX_DEVICES = 300  # drawn per picture; a bigger lab is refused (the caller says so)
WIDTH_PX = 1200  # wide enough to read on a phone when zoomed, small in bytes
TOP_PX, MARGIN_PX = 110, 40  # the title and the legend above the lab; white space around it
SMOOTH = 2  # shapes drawn at twice the size, then halved: smooth edges, exact fill colours
INK, EDGE = "#1a202c", "#a0aec0"


class TooManyDevices(ValueError):
    """The lab has more devices than one picture can show readably."""


@dataclass(frozen=True)
class Picture:
    png: bytes
    width: int
    height: int
    labels: dict[str, tuple[int, int]]  # device -> pixel (x, y from the top left) of its node


def draw_lab(
    devices: Sequence[str], links: Sequence[Link], roles: Mapping[str, Role], title: str
) -> Picture:
    """The lab with each device coloured by its role (unnamed devices: `other`)."""
    if len(devices) > MAX_DEVICES:
        raise TooManyDevices(f"{len(devices)} devices; a picture shows at most {MAX_DEVICES}")
    names = sorted(devices)
    known = set(names)
    edges = [
        (link["a_device"], link["b_device"])
        for link in links
        if link["a_device"] in known and link["b_device"] in known
    ]
    height = WIDTH_PX if len(names) > 12 else WIDTH_PX * 3 // 4
    radius = _radius(len(names), height)
    places = _pixels(spring_layout(names, edges), height, radius)
    image = _shapes(names, edges, places, roles, radius, height)
    canvas = ImageDraw.Draw(image)
    _labels(canvas, places, roles, radius)
    _heading(canvas, title, roles)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    labels = {name: (round(x), round(y)) for name, (x, y) in places.items()}
    return Picture(buffer.getvalue(), WIDTH_PX, height, labels)


def _pixels(layout: Mapping[str, Point], height: int, radius: int) -> dict[str, Point]:
    """The layout's unit square spread over the drawing area (y grows downwards)."""
    inset = MARGIN_PX + radius
    inner_w, inner_h = WIDTH_PX - 2 * inset, height - TOP_PX - 2 * inset
    return {
        name: (inset + x * inner_w, TOP_PX + inset + (1 - y) * inner_h)
        for name, (x, y) in layout.items()
    }


def _radius(count: int, height: int) -> int:
    """Big nodes for a small lab, smaller as the lab grows (a fifth of the room each has)."""
    room = math.sqrt(WIDTH_PX * (height - TOP_PX) / max(count, 1))
    return max(9, min(28, round(0.22 * room)))


def _shapes(
    names: Sequence[str],
    edges: Sequence[tuple[str, str]],
    places: Mapping[str, Point],
    roles: Mapping[str, Role],
    radius: int,
    height: int,
) -> Image.Image:
    """Links and nodes, drawn large and halved (Pillow draws shapes without anti-aliasing)."""
    big = Image.new("RGB", (WIDTH_PX * SMOOTH, height * SMOOTH), "white")
    canvas = ImageDraw.Draw(big)
    for a, b in edges:
        ends = [coordinate * SMOOTH for coordinate in (*places[a], *places[b])]
        canvas.line(ends, fill=EDGE, width=2 * SMOOTH)
    for name in names:
        x, y = places[name]
        box = [
            (x - radius) * SMOOTH,
            (y - radius) * SMOOTH,
            (x + radius) * SMOOTH,
            (y + radius) * SMOOTH,
        ]
        canvas.ellipse(box, fill=COLOURS[roles.get(name, "other")])
    return big.reduce(SMOOTH)


def _labels(
    canvas: ImageDraw.ImageDraw,
    places: Mapping[str, Point],
    roles: Mapping[str, Role],
    radius: int,
) -> None:
    """Each device's name on its node: dark on the light grey, white on the strong colours."""
    font = ImageFont.load_default(size=max(10, min(16, round(0.6 * radius))))
    for name, place in places.items():
        ink = INK if roles.get(name, "other") == "other" else "white"
        canvas.text(place, name, fill=ink, font=font, anchor="mm")


def _heading(canvas: ImageDraw.ImageDraw, title: str, roles: Mapping[str, Role]) -> None:
    """The title, and under it the legend of the colours this picture uses, centred."""
    canvas.text(
        (WIDTH_PX / 2, 32), title[:120], fill=INK, font=ImageFont.load_default(24), anchor="mm"
    )
    font = ImageFont.load_default(size=16)
    used = sorted({*roles.values(), "other"}, key=list(COLOURS).index)
    widths = [30 + canvas.textlength(LEGEND[role], font=font) for role in used]
    x = (WIDTH_PX - sum(widths) - 24 * (len(used) - 1)) / 2
    for role, width in zip(used, widths, strict=True):
        canvas.ellipse([x, 68, x + 18, 86], fill=COLOURS[role])
        canvas.text((x + 26, 77), LEGEND[role], fill=INK, font=font, anchor="lm")
        x += width + 24
