"""The heading of the lab's picture: its title, and under it the legend of what this picture
uses — device colours, link colours (after post-checks) and shapes — in rows as wide as the
picture."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from PIL import ImageDraw, ImageFont

from bot import messages
from bot.topology.scene import SHAPE_NAMES, Scene
from bot.topology.shapes import COLOURS, LINK_COLOURS, draw_shape

Entry = tuple[Literal["role", "link", "shape"], str, str]  # what it shows, its key, its words
TITLE_SIZE, LEGEND_SIZE = 22, 15
TOP_PX, TITLE_PX, ROW_PX = 12, 40, 26  # the title's band, then a band per legend row
SWATCH_PX, ITEM_GAP_PX, SIDE_PX = 20, 22, 16
INK = "#1a202c"


def legend(scene: Scene) -> list[Entry]:
    """The colours and shapes this scene uses, in a fixed order."""
    roles = {scene.roles.get(name, "other") for name in scene.devices}
    states = {link.state for link in scene.links}
    shapes = {scene.shapes.get(name, "other") for name in scene.devices}
    entries: list[Entry] = [("role", r, messages.PICTURE_ROLES[r]) for r in COLOURS if r in roles]
    if states - {"unchecked"}:  # links are coloured only after post-checks
        entries += [("link", s, messages.PICTURE_LINKS[s]) for s in LINK_COLOURS if s in states]
    entries += [("shape", s, messages.PICTURE_SHAPES[s]) for s in SHAPE_NAMES if s in shapes]
    return entries


def heading_height(canvas: ImageDraw.ImageDraw, scene: Scene, width: int) -> int:
    rows = {row for row, _, _ in _laid_out(canvas, legend(scene), width)}
    return TOP_PX + TITLE_PX + ROW_PX * len(rows)


def draw_heading(canvas: ImageDraw.ImageDraw, scene: Scene, title: str, width: int) -> None:
    font = ImageFont.load_default(size=LEGEND_SIZE)
    canvas.text((width / 2, TOP_PX + TITLE_PX / 2), title[:120], fill=INK,
                font=ImageFont.load_default(size=TITLE_SIZE), anchor="mm")  # fmt: skip
    for row, x, (what, key, words) in _laid_out(canvas, legend(scene), width):
        y = TOP_PX + TITLE_PX + ROW_PX * row + ROW_PX / 2
        half = SWATCH_PX / 2
        if what == "role":
            canvas.ellipse([x, y - half, x + SWATCH_PX, y + half], fill=COLOURS[key])  # type: ignore[index]
        elif what == "link":
            canvas.line([x, y, x + SWATCH_PX, y], fill=LINK_COLOURS[key], width=4)  # type: ignore[index]
        else:
            draw_shape(canvas, key, (x + half, y), "white", radius=half * 0.8)  # type: ignore[arg-type]
        canvas.text((x + SWATCH_PX + 6, y), words, fill=INK, font=font, anchor="lm")


def _laid_out(
    canvas: ImageDraw.ImageDraw, entries: list[Entry], width: int
) -> Iterator[tuple[int, float, Entry]]:
    """(row, left x, entry): entries side by side, a new row when the next one would not fit;
    each row centred."""
    font = ImageFont.load_default(size=LEGEND_SIZE)
    widths = [SWATCH_PX + 6 + canvas.textlength(words, font=font) for _, _, words in entries]
    rows: list[list[int]] = [[]]
    used = 0.0
    for index, item_width in enumerate(widths):
        if rows[-1] and used + ITEM_GAP_PX + item_width > width - 2 * SIDE_PX:
            rows.append([])
            used = 0.0
        used += (ITEM_GAP_PX if rows[-1] else 0) + item_width
        rows[-1].append(index)
    for row, members in enumerate(rows):
        total = sum(widths[i] for i in members) + ITEM_GAP_PX * (len(members) - 1)
        x = (width - total) / 2
        for index in members:
            yield row, x, entries[index]
            x += widths[index] + ITEM_GAP_PX
