"""How devices and links look in the lab's picture: a device's fill by its part in the change,
a link's colour by its sessions, and each kind of device as its own shape — a router a circle, a
switch a square, a host a wide box (a screen), anything else a diamond."""

from __future__ import annotations

from PIL import ImageDraw

from bot.topology.labels import Box, Point
from bot.topology.scene import LinkState, Role, Shape

COLOURS: dict[Role, str] = {
    "target": "#2b6cb0",  # blue: this change touches it
    "other": "#cbd5e0",  # grey: not part of the change
    "pushed": "#9ae6b4",  # light green: pushed, no post-check looked at it
    "passed": "#2f855a",  # green: pushed, its post-checks passed
    "failed": "#c53030",  # red
    "postcheck_failed": "#dd6b20",  # orange: pushed, but a post-check failed
}
LINK_COLOURS: dict[LinkState, str] = {"up": "#38a169", "down": "#e53e3e", "unchecked": "#a0aec0"}
LIGHT: set[Role] = {"other", "pushed"}  # fills that take dark text
RADIUS = 20  # px: half a shape's height
OUTLINE = "#4a5568"


def shape_box(shape: Shape, at: Point, radius: float = RADIUS) -> Box:
    """The box the shape fills around its centre `at`."""
    x, y = at
    half_width = radius * 1.3 if shape == "host" else radius
    half_height = radius * 0.8 if shape == "host" else radius
    return (x - half_width, y - half_height, x + half_width, y + half_height)


def draw_shape(
    canvas: ImageDraw.ImageDraw, shape: Shape, at: Point, fill: str, radius: float = RADIUS
) -> None:
    box = shape_box(shape, at, radius)
    if shape == "router":
        canvas.ellipse(box, fill=fill, outline=OUTLINE, width=1)
    elif shape in ("switch", "host"):
        corner = 3 if shape == "switch" else 6
        canvas.rounded_rectangle(box, radius=corner, fill=fill, outline=OUTLINE, width=1)
    else:
        x, y = at
        diamond = [(x, y - radius), (x + radius, y), (x, y + radius), (x - radius, y)]
        canvas.polygon(diamond, fill=fill, outline=OUTLINE)
